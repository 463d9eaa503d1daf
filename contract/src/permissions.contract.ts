import { defineContract } from '@cairn/platform';
import { z } from 'zod';

/** DECISIONS.md 2: the permission bits, served so that clients never hard-code them. */
export const permissionFlags = {
  READ_METADATA: 1,
  WRITE_METADATA: 2,
  READ_CONTENT: 4,
  WRITE_CONTENT: 8,
  READ_NOTES: 16,
  WRITE_NOTES: 32,
  LIST: 64,
  DELETE: 128,
  MANAGE: 256,
} as const;

export const permissionFlagsSchema = z
  .object(Object.fromEntries(Object.entries(permissionFlags).map(([name, bit]) => [name, z.literal(bit)])))
  .meta({ id: 'PermissionFlags' });

export const listPermissionFlags = defineContract({
  operationId: 'permissions_flags',
  method: 'get',
  path: '/api/permissions/flags/',
  summary: 'The permission flag bits and their names.',
  tag: 'permissions',
  side: 'query',
  authenticated: false,
  responses: { 200: { description: 'Name to bit value.', schema: permissionFlagsSchema } },
  readModels: [],
});
