import type { DomainEvent } from '../shared/events.ts';
import type { Brand } from '../shared/ids.ts';

export type CollectionId = Brand<string, 'CollectionId'>;

export type CollectionOwnerType = 'project' | 'user';

/**
 * Interface 2.3. For now only a project's root collection is made (at project creation);
 * the collections issue adds the other commands, with this event's shape as the base.
 */
export type CollectionCreated = DomainEvent<
  'CollectionCreated',
  {
    readonly id: CollectionId;
    readonly title: string;
    readonly description: string;
    readonly alias: string;
    readonly tags: readonly string[];
    readonly type: readonly string[];
    readonly license: string;
    readonly parentId: string | null;
    readonly ownerType: CollectionOwnerType;
    readonly ownerUserId: string | null;
    readonly ownerProjectId: string | null;
    readonly isRoot: boolean;
    readonly preferredRepositoryId: string | null;
  }
>;

export type CollectionDeleted = DomainEvent<'CollectionDeleted', { readonly id: CollectionId }>;

export type CollectionEvent = CollectionCreated | CollectionDeleted;

export const collectionEventTypes = ['CollectionCreated', 'CollectionDeleted'] as const satisfies readonly CollectionEvent['type'][];
