import type { PermissionEntry } from '../assets/events.ts';
import type { DomainEvent } from '../shared/events.ts';
import type { Brand } from '../shared/ids.ts';

export type CollectionId = Brand<string, 'CollectionId'>;

export type CollectionOwnerType = 'project' | 'user';

/** What PATCH may change besides the parent (interface 2.3; DECISIONS.md 4 maxima). */
export type CollectionDetails = {
  readonly title: string;
  readonly description: string;
  readonly alias: string;
  readonly tags: readonly string[];
  readonly type: readonly string[];
  readonly license: string;
  readonly preferredRepositoryId: string | null;
};

/**
 * Interface 2.3. `revision` counts the collection's changes (1 at creation; absent on
 * events stored before it existed): the provenance token is derived from it.
 */
export type CollectionCreated = DomainEvent<
  'CollectionCreated',
  CollectionDetails & {
    readonly id: CollectionId;
    readonly parentId: string | null;
    readonly ownerType: CollectionOwnerType;
    readonly ownerUserId: string | null;
    readonly ownerProjectId: string | null;
    readonly isRoot: boolean;
    readonly revision?: number;
  }
>;
export type CollectionUpdated = DomainEvent<'CollectionUpdated', { readonly id: CollectionId; readonly changes: Partial<CollectionDetails>; readonly revision: number }>;
export type CollectionMoved = DomainEvent<'CollectionMoved', { readonly id: CollectionId; readonly parentId: string; readonly revision: number }>;
export type CollectionPermissionsSet = DomainEvent<'CollectionPermissionsSet', { readonly id: CollectionId; readonly entries: readonly PermissionEntry[]; readonly revision: number }>;
export type CollectionDeleted = DomainEvent<'CollectionDeleted', { readonly id: CollectionId }>;

export type CollectionEvent = CollectionCreated | CollectionUpdated | CollectionMoved | CollectionPermissionsSet | CollectionDeleted;

export const collectionEventTypes = [
  'CollectionCreated',
  'CollectionUpdated',
  'CollectionMoved',
  'CollectionPermissionsSet',
  'CollectionDeleted',
] as const satisfies readonly CollectionEvent['type'][];

export const collectionLimits = { title: 255, license: 255, alias: 100, tag: 100, tagCount: 50, description: 10_000 } as const;
