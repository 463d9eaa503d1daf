/**
 * The permission flag bits of DECISIONS.md 2. The API serves them at
 * GET /api/permissions/flags/ so that clients never hard-code them.
 */
export const permissionBits = {
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

export type PermissionName = keyof typeof permissionBits;

export const allPermissionBits = Object.values(permissionBits).reduce((all, bit) => all | bit, 0);

/**
 * The one sentence of every 403 for a missing flag: names flags, never a phrase that may
 * already say "permission" (which once answered "the DELETE permission permission").
 */
export function lackedPermissions(names: readonly [PermissionName, ...PermissionName[]], on: string): string {
  const listed = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1] ?? ''}`;
  return `You lack the ${listed} ${names.length === 1 ? 'permission' : 'permissions'} on ${on}.`;
}
