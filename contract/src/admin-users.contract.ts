import { defineContract } from '@cairn/platform';
import { z } from 'zod';
import { dateTime, queryBoolean, uuid } from './fields.ts';

// Interface 2.6, 3 and 4.1; DECISIONS.md 3 (the page envelope). System administrators only.

export const organizationRoleSchema = z.enum(['admin', 'member']);

export const adminUserSchema = z
  .object({
    id: uuid,
    email: z.string(),
    name: z.string(),
    is_active: z.boolean(),
    is_system_admin: z.boolean(),
    created_at: dateTime,
    last_login: dateTime.nullable().describe('Null until the user signs in.'),
    organizations: z.array(z.object({ organization_id: uuid, name: z.string(), role: organizationRoleSchema }).meta({ id: 'AdminUserOrganization' })),
  })
  .meta({ id: 'AdminUserDetail' });

export const paginatedAdminUserListSchema = z
  .object({
    count: z.number().int().describe('Users matching the filters, over all pages.'),
    next: z.string().nullable().describe('Absolute URL of the next page, or null.'),
    previous: z.string().nullable().describe('Absolute URL of the previous page, or null.'),
    results: z.array(adminUserSchema),
  })
  .meta({ id: 'PaginatedAdminUserList' });

export const adminUserPatchSchema = z
  .object({
    is_active: z.boolean().optional().describe('False deactivates the user: hidden from the list, tokens refused.'),
    is_system_admin: z.boolean().optional(),
  })
  .meta({ id: 'AdminUserPatch', description: 'Any other field is silently ignored.' });

const requiredUuid = z.uuid({ error: 'Must be a valid UUID.' });

export const adminUserOrgAddSchema = z
  .object({ organization_id: requiredUuid, role: organizationRoleSchema.default('member') })
  .meta({ id: 'AdminUserOrgAdd' });

export const adminUserOrgRoleSchema = z.object({ role: organizationRoleSchema.optional() }).meta({ id: 'AdminUserOrgRole' });

export const defaultAdminPageSize = 50;
export const maxAdminPageSize = 500;

const positiveInteger = z.coerce
  .number({ error: 'A valid integer is required.' })
  .int('A valid integer is required.')
  .min(1, 'Ensure this value is greater than or equal to 1.');

export const adminUserListQuery = z.object({
  q: z.string().max(255).optional().describe('Case-insensitive substring of the name or the e-mail address.'),
  include_deactivated: queryBoolean
    .optional()
    .transform((v) => v === true)
    .describe('A boolean spelled as in a form (`true`, `1`, `yes`, `on`; `false`, `0`, `no`, `off`; any case): true lists deactivated users too. Default false; other text is 400.'),
  page: positiveInteger.optional().transform((v) => v ?? 1).describe('Page number, from 1. A page past the last one is 404.'),
  page_size: positiveInteger
    .optional()
    .transform((v) => Math.min(v ?? defaultAdminPageSize, maxAdminPageSize))
    .describe(`Users per page: default ${defaultAdminPageSize}; larger values are reduced to ${maxAdminPageSize}.`),
});

const tag = 'admin';
const readModels = ['identity'];

export const listAdminUsers = defineContract({
  operationId: 'admin_users_list',
  method: 'get',
  path: '/api/admin/users/',
  summary: 'List users, ordered by name (system administrators).',
  tag,
  side: 'query',
  authenticated: true,
  query: adminUserListQuery,
  responses: { 200: { description: 'One page of users.', schema: paginatedAdminUserListSchema } },
  // A page past the last one.
  errors: [404],
  readModels,
});

export const getAdminUser = defineContract({
  operationId: 'admin_users_retrieve',
  method: 'get',
  path: '/api/admin/users/{id}/',
  summary: 'Read one user (system administrators).',
  tag,
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The user.', schema: adminUserSchema } },
  readModels,
});

export const updateAdminUser = defineContract({
  operationId: 'admin_users_partial_update',
  method: 'patch',
  path: '/api/admin/users/{id}/',
  summary: 'Activate, deactivate, grant or revoke system administration (system administrators).',
  tag,
  side: 'command',
  authenticated: true,
  body: adminUserPatchSchema,
  // 409 `last_system_admin`: the change would leave no active system administrator.
  responses: { 200: { description: 'The changed user.', schema: adminUserSchema } },
  readModels,
});

export const addAdminUserOrganization = defineContract({
  operationId: 'admin_users_organizations_create',
  method: 'post',
  path: '/api/admin/users/{id}/organizations/',
  summary: 'Add the user to an organization (system administrators).',
  tag,
  side: 'command',
  authenticated: true,
  body: adminUserOrgAddSchema,
  bodyRequired: true,
  // 404 for an unknown user or organization, 409 `already_member`.
  responses: { 201: { description: 'Added; no body.' } },
  readModels,
});

export const changeAdminUserOrganizationRole = defineContract({
  operationId: 'admin_users_organizations_partial_update',
  method: 'patch',
  path: '/api/admin/users/{id}/organizations/{org_pk}/',
  summary: "Change the user's role in an organization (system administrators).",
  tag,
  side: 'command',
  authenticated: true,
  body: adminUserOrgRoleSchema,
  responses: { 200: { description: 'Changed; no body.' } },
  readModels,
});

export const removeAdminUserOrganization = defineContract({
  operationId: 'admin_users_organizations_destroy',
  method: 'delete',
  path: '/api/admin/users/{id}/organizations/{org_pk}/',
  summary: 'Remove the user from an organization (system administrators).',
  tag,
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Removed.' } },
  readModels,
});

export const adminUserContracts = [
  listAdminUsers,
  getAdminUser,
  updateAdminUser,
  addAdminUserOrganization,
  changeAdminUserOrganizationRole,
  removeAdminUserOrganization,
];
