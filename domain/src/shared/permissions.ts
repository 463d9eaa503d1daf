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
