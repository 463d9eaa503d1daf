import type { CollectionId } from './events.ts';

export const collectionStream = (id: CollectionId | string) => `collection-${id}`;
