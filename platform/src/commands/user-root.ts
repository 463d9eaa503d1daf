import { createHash } from 'node:crypto';

/**
 * The id of a user's root collection: derived from the user's (UUID version 5 layout), so
 * that it exists exactly once whoever makes it first (registration, or a first need for
 * users registered before roots existed).
 */
export function userRootCollectionId(userId: string): string {
  const bytes = createHash('sha1').update(`cairn-user-root:${userId.toLowerCase()}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
