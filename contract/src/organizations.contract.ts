import { defineContract } from '@cairn/platform';
import { z } from 'zod';
import { organizationRoleSchema } from './admin-users.contract.ts';
import { dateTime, requiredText, uuid } from './fields.ts';

export const organizationSchema = z
  .object({
    id: uuid,
    name: z.string(),
    country: z.string().nullable().describe('ISO 3166-1 alpha-2 code, or null.'),
    created_at: dateTime,
    member_count: z.number().int(),
    current_user_role: organizationRoleSchema.nullable().describe("The caller's role; null when the caller is not a member."),
  })
  .meta({ id: 'Organization' });

// Two capital letters (interface 8); "" and null mean no country.
const countryField = z.string().regex(/^([A-Z]{2})?$/, 'Enter a country code of two capital letters, such as "DE".').nullish();

export const organizationWriteSchema = z
  .object({ name: requiredText(255), country: countryField.transform((v) => (v ? v : null)) })
  .meta({ id: 'OrganizationWrite' });

export const patchedOrganizationWriteSchema = z
  .object({ name: requiredText(255).optional(), country: countryField.transform((v) => (v === undefined ? undefined : v ? v : null)) })
  .meta({ id: 'PatchedOrganizationWrite' });

const tag = 'organizations';
const readModels = ['identity'];

export const listOrganizations = defineContract({
  operationId: 'organizations_list',
  method: 'get',
  path: '/api/organizations/',
  summary: "The caller's organizations (every organization for a system administrator), ordered by name.",
  tag,
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The organizations.', schema: z.array(organizationSchema) } },
  readModels,
});

export const getOrganization = defineContract({
  operationId: 'organizations_retrieve',
  method: 'get',
  path: '/api/organizations/{id}/',
  summary: 'Read one organization (its members and system administrators).',
  tag,
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The organization.', schema: organizationSchema } },
  readModels,
});

export const createOrganization = defineContract({
  operationId: 'organizations_create',
  method: 'post',
  path: '/api/organizations/',
  summary: 'Create an organization (system administrators).',
  tag,
  side: 'command',
  authenticated: true,
  body: organizationWriteSchema,
  bodyRequired: true,
  responses: { 201: { description: 'Created.', schema: organizationSchema } },
  readModels,
});

export const updateOrganization = defineContract({
  operationId: 'organizations_partial_update',
  method: 'patch',
  path: '/api/organizations/{id}/',
  summary: 'Rename an organization or change its country (system administrators).',
  tag,
  side: 'command',
  authenticated: true,
  body: patchedOrganizationWriteSchema,
  responses: { 200: { description: 'The changed organization.', schema: organizationSchema } },
  readModels,
});

export const organizationContracts = [listOrganizations, getOrganization, createOrganization, updateOrganization];
