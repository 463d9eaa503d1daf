import { defineContract } from '@cairn/platform';
import { z } from 'zod';
import { dateTime, optionalText, requiredText, uuid } from './fields.ts';

// Interface 2.2 and 4.5; DECISIONS.md 4 names the create body; docs/projects.md has the rest.
const roles = ['admin', 'member', 'viewer'] as const;
const bases = ['ip', 'affiliation', 'ip_or_affiliation', 'ip_and_affiliation'] as const;
const descriptionMax = 10_000;

const countryCode = z.string().regex(/^[A-Z]{2}$/, 'Enter a two-letter country code in capitals (ISO 3166-1 alpha-2), matching ^[A-Z]{2}$.');
const countryCodes = z.array(countryCode).max(300, 'Ensure this list has no more than 300 countries.');
/** A reference that may be cleared: null (or "" in a form) removes it. */
const optionalReference = z
  .union([z.uuid({ error: 'Must be a UUID.' }), z.literal('').transform(() => null), z.null()], { error: 'Must be a UUID or null.' })
  .optional();

export const projectSchema = z
  .object({
    id: uuid,
    name: z.string().max(255),
    description: z.string(),
    organization_id: uuid,
    owner_id: uuid,
    created_at: dateTime,
    updated_at: dateTime,
    member_count: z.int().min(0),
    root_collection_id: uuid,
    effective_flags: z.int().min(0).describe("The caller's permission flags on the project (bits of GET /api/permissions/flags/)."),
    is_starred: z.boolean().describe('Whether the caller starred the project.'),
    access_scope: z
      .enum(['direct', 'organization', 'admin'])
      .describe('Why the caller sees the project: `direct` as a member, `organization` as an admin of its organization, `admin` as a system administrator.'),
    current_user_role: z.enum(roles).nullable().describe("The caller's role in the project, or null when not a member."),
    geobound_enabled: z.boolean(),
    geobound_basis: z.enum(bases),
    geobound_allowed_countries: z.array(z.string()),
    geobound_allowed_country_set: uuid.nullable(),
    geobound_denied_country_set: uuid.nullable(),
    geobound_block_vpn: z.boolean(),
    geobound_fail_closed: z.boolean(),
  })
  .meta({ id: 'Project' });

export const projectCreateSchema = z
  .object({
    name: requiredText(255),
    description: optionalText(descriptionMax),
    organization_id: z.uuid({ error: 'Must be a UUID.' }),
  })
  .meta({ id: 'ProjectCreate' });

export const patchedProjectSchema = z
  .object({
    name: requiredText(255).optional(),
    description: optionalText(descriptionMax).optional(),
    geobound_enabled: z.boolean().optional().describe('Switches the geographic restriction on or off.'),
    geobound_basis: z.enum(bases).optional().describe('Whose country is judged: the IP country, the affiliation country, either, or both.'),
    geobound_allowed_countries: countryCodes.optional().describe('Countries allowed besides those of the allowed set; none at all: every country not denied.'),
    geobound_allowed_country_set: optionalReference.describe("A named `allowed` country set of the project's organization."),
    geobound_denied_country_set: optionalReference.describe("A named `denied` country set of the project's organization."),
    geobound_block_vpn: z.boolean().optional().describe('Deny requests from the configured VPN and hosting networks.'),
    geobound_fail_closed: z.boolean().optional().describe('Deny when the country cannot be determined.'),
  })
  .meta({ id: 'PatchedProject' });

export const projectMemberSchema = z
  .object({ user_id: uuid, name: z.string(), email: z.string(), role: z.enum(roles), created_at: dateTime, updated_at: dateTime })
  .meta({ id: 'ProjectMember' });

export const projectMemberAddSchema = z
  .object({
    user_id: z.uuid({ error: 'Must be a UUID.' }),
    role: z.enum(roles, { error: 'Must be one of admin, member, viewer.' }).default('member'),
  })
  .meta({ id: 'ProjectMemberAdd' });

export const patchedProjectMemberSchema = z
  .object({ role: z.enum(roles, { error: 'Must be one of admin, member, viewer.' }) })
  .meta({ id: 'PatchedProjectMember' });

const tag = 'projects';
// The identity read model decides who sees what; the projects read model holds the answer.
const readModels = ['identity', 'projects'];

export const listProjects = defineContract({
  operationId: 'projects_list',
  method: 'get',
  path: '/api/projects/',
  summary: 'List the projects the caller is a member of or administers through its organization (every project for a system administrator), ordered by name.',
  tag,
  side: 'query',
  authenticated: true,
  query: z.object({
    q: z.string().max(255).optional().describe('Case-insensitive substring of the project name.'),
    organization_id: z.uuid({ error: 'Must be a UUID.' }).optional().describe('Only projects of this organization.'),
  }),
  responses: { 200: { description: 'The projects.', schema: z.array(projectSchema) } },
  readModels,
});

export const createProject = defineContract({
  operationId: 'projects_create',
  method: 'post',
  path: '/api/projects/',
  summary: 'Create a project in an organization the caller belongs to; the caller becomes its admin and owner.',
  tag,
  side: 'command',
  authenticated: true,
  body: projectCreateSchema,
  bodyRequired: true,
  responses: { 201: { description: 'Created, with its root collection.', schema: projectSchema } },
  readModels,
});

export const getProject = defineContract({
  operationId: 'projects_retrieve',
  method: 'get',
  path: '/api/projects/{id}/',
  summary: 'Read one project (subject to its geographic restriction).',
  tag,
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The project.', schema: projectSchema } },
  readModels,
});

export const updateProject = defineContract({
  operationId: 'projects_partial_update',
  method: 'patch',
  path: '/api/projects/{id}/',
  summary: "Change a project's name, description or geographic restriction (project admins, organization admins, system administrators).",
  tag,
  side: 'command',
  authenticated: true,
  body: patchedProjectSchema,
  responses: { 200: { description: 'The changed project.', schema: projectSchema } },
  readModels,
});

export const deleteProject = defineContract({
  operationId: 'projects_destroy',
  method: 'delete',
  path: '/api/projects/{id}/',
  summary: 'Delete a project and its root collection (project admins, organization admins, system administrators).',
  tag,
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Deleted.' } },
  readModels,
});

export const listProjectMembers = defineContract({
  operationId: 'projects_members_list',
  method: 'get',
  path: '/api/projects/{id}/members/',
  summary: "List a project's members, ordered by name.",
  tag,
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The members.', schema: z.array(projectMemberSchema) } },
  readModels,
});

export const addProjectMember = defineContract({
  operationId: 'projects_members_create',
  method: 'post',
  path: '/api/projects/{id}/members/',
  summary: 'Add a user to a project with a role (default `member`).',
  tag,
  side: 'command',
  authenticated: true,
  body: projectMemberAddSchema,
  bodyRequired: true,
  responses: { 201: { description: 'The new member.', schema: projectMemberSchema } },
  readModels,
});

export const updateProjectMember = defineContract({
  operationId: 'projects_members_partial_update',
  method: 'patch',
  path: '/api/projects/{id}/members/{user_id}/',
  summary: "Change a member's role.",
  tag,
  side: 'command',
  authenticated: true,
  body: patchedProjectMemberSchema,
  bodyRequired: true,
  responses: { 200: { description: 'The member.', schema: projectMemberSchema } },
  readModels,
});

export const removeProjectMember = defineContract({
  operationId: 'projects_members_destroy',
  method: 'delete',
  path: '/api/projects/{id}/members/{user_id}/',
  summary: 'Remove a member (or leave the project: any member may remove themselves).',
  tag,
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Removed.' } },
  readModels,
});

export const starProject = defineContract({
  operationId: 'projects_star_create',
  method: 'post',
  path: '/api/projects/{id}/star/',
  summary: 'Star the project for the caller.',
  tag,
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Starred (also when it already was).' } },
  readModels,
});

export const unstarProject = defineContract({
  operationId: 'projects_star_destroy',
  method: 'delete',
  path: '/api/projects/{id}/star/',
  summary: 'Remove the caller’s star from the project.',
  tag,
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Not starred (also when it was not).' } },
  readModels,
});

export const projectContracts = [
  listProjects,
  createProject,
  getProject,
  updateProject,
  deleteProject,
  listProjectMembers,
  addProjectMember,
  updateProjectMember,
  removeProjectMember,
  starProject,
  unstarProject,
];
