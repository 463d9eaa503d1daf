import { permissionBits } from '@cairn/domain';
import { defineContract } from '@cairn/platform';
import { z } from 'zod';

/** DECISIONS.md 2: the permission bits, served so that clients never hard-code them. */
export const permissionFlags = permissionBits;

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
