import { defineContract } from '@cairn/platform';
import { z } from 'zod';
import { dateTime, optionalText, requiredText, uuid } from './fields.ts';

// Interface 2.4 and 4.6; DECISIONS.md 4 names the list parameters `user` and `q`.
export const groupSchema = z
  .object({
    id: uuid,
    organization_id: uuid,
    name: z.string().max(255),
    description: z.string(),
    type: z.enum(['members', 'custom']).describe("`members`: the organization's members, kept in step with its membership; `custom`: managed by its admins."),
    created_at: dateTime,
    updated_at: dateTime,
    member_count: z.int().min(0),
  })
  .meta({ id: 'Group' });

export const groupMemberSchema = z.object({ id: uuid, email: z.string(), name: z.string() }).meta({ id: 'GroupMember' });

const descriptionMax = 2000;

export const groupCreateSchema = z
  .object({ organization_id: z.uuid({ error: 'Must be a UUID.' }), name: requiredText(255), description: optionalText(descriptionMax) })
  .meta({ id: 'GroupCreate' });

export const patchedGroupSchema = z
  .object({ name: requiredText(255).optional(), description: optionalText(descriptionMax).optional() })
  .meta({ id: 'PatchedGroup' });

export const groupMemberAddSchema = z.object({ user_id: z.uuid({ error: 'Must be a UUID.' }) }).meta({ id: 'GroupMemberAdd' });

const tag = 'groups';
// The identity read model decides who sees what; the groups read model holds the answer.
const readModels = ['identity', 'groups'];

export const listGroups = defineContract({
  operationId: 'groups_list',
  method: 'get',
  path: '/api/groups/',
  summary: 'List the groups of the organizations the caller belongs to (every group for a system administrator), ordered by name.',
  tag,
  side: 'query',
  authenticated: true,
  query: z.object({
    user: z
      .union([z.literal('me'), z.uuid()], { error: 'Must be a user id or "me".' })
      .optional()
      .describe('Only groups this user (a user id, or `me` for the caller) is a member of.'),
    q: z.string().max(255).optional().describe('Case-insensitive substring of the group name.'),
  }),
  responses: { 200: { description: 'The groups.', schema: z.array(groupSchema) } },
  readModels,
});

export const createGroup = defineContract({
  operationId: 'groups_create',
  method: 'post',
  path: '/api/groups/',
  summary: 'Create a custom group (organization admins and system administrators).',
  tag,
  side: 'command',
  authenticated: true,
  body: groupCreateSchema,
  bodyRequired: true,
  responses: { 201: { description: 'Created.', schema: groupSchema } },
  readModels,
});

export const getGroup = defineContract({
  operationId: 'groups_retrieve',
  method: 'get',
  path: '/api/groups/{id}/',
  summary: 'Read one group.',
  tag,
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The group.', schema: groupSchema } },
  readModels,
});

export const updateGroup = defineContract({
  operationId: 'groups_partial_update',
  method: 'patch',
  path: '/api/groups/{id}/',
  summary: 'Rename or describe a custom group (organization admins and system administrators).',
  tag,
  side: 'command',
  authenticated: true,
  body: patchedGroupSchema,
  responses: { 200: { description: 'The changed group.', schema: groupSchema } },
  readModels,
});

export const deleteGroup = defineContract({
  operationId: 'groups_destroy',
  method: 'delete',
  path: '/api/groups/{id}/',
  summary: 'Delete a custom group (organization admins and system administrators).',
  tag,
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Deleted.' } },
  readModels,
});

export const listGroupMembers = defineContract({
  operationId: 'groups_members_list',
  method: 'get',
  path: '/api/groups/{id}/members/',
  summary: 'List the members of a group, ordered by name.',
  tag,
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The members.', schema: z.array(groupMemberSchema) } },
  readModels,
});

export const addGroupMember = defineContract({
  operationId: 'groups_members_create',
  method: 'post',
  path: '/api/groups/{id}/members/',
  summary: "Add a member of the group's organization to a custom group.",
  tag,
  side: 'command',
  authenticated: true,
  body: groupMemberAddSchema,
  bodyRequired: true,
  responses: { 201: { description: 'Added.', schema: groupMemberSchema } },
  readModels,
});

export const removeGroupMember = defineContract({
  operationId: 'groups_members_destroy',
  method: 'delete',
  path: '/api/groups/{id}/members/{user_id}/',
  summary: 'Remove a member from a custom group.',
  tag,
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Removed.' } },
  readModels,
});

export const groupContracts = [listGroups, createGroup, getGroup, updateGroup, deleteGroup, listGroupMembers, addGroupMember, removeGroupMember];
