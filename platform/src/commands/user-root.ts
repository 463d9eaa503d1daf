import { nameBasedId } from '../ids/name-based-id.ts';

/**
 * The id of a user's root collection: derived from the user's, so that it exists exactly
 * once whoever makes it first (registration, or a first need for users registered before
 * roots existed).
 */
export function userRootCollectionId(userId: string): string {
  return nameBasedId(`cairn-user-root:${userId.toLowerCase()}`);
}
