import type { DomainEvent } from '../shared/events.ts';
import type { Brand } from '../shared/ids.ts';
import { assetMigrationEventTypes, type AssetMigrationEvent } from './migrations.ts';

export type AssetId = Brand<string, 'AssetId'>;

/** A JSON value as asset metadata holds it (docs/assets.md: limits in limits.ts). */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };
export type JsonObject = { readonly [key: string]: JsonValue };

export const ownerTypes = ['user', 'project', 'organization'] as const;
export type OwnerType = (typeof ownerTypes)[number];

/** DECISIONS.md 2: the subjects a permission entry may name; `public` has no id. */
export const subjectTypes = ['user', 'group', 'organization', 'project', 'public'] as const;
export type SubjectType = (typeof subjectTypes)[number];

export type PermissionEntry = { readonly subjectType: SubjectType; readonly subjectId: string | null; readonly flags: number };

/** What PATCH may change besides the owner (DECISIONS.md 4, AssetWrite). */
export type AssetDetails = {
  readonly title: string;
  readonly alias: string;
  readonly description: string;
  readonly recordType: string;
  readonly tags: readonly string[];
  readonly metadata: JsonObject;
};

export type AssetOwner = { readonly ownerType: OwnerType; readonly ownerId: string };

export type AssetCreated = DomainEvent<
  'AssetCreated',
  { readonly id: AssetId; readonly createdAt: string; readonly collectionId: string | null } & AssetDetails & AssetOwner
>;
export type AssetUpdated = DomainEvent<'AssetUpdated', { readonly id: AssetId; readonly changes: Partial<AssetDetails> }>;
export type AssetOwnerChanged = DomainEvent<'AssetOwnerChanged', { readonly id: AssetId } & AssetOwner>;
export type AssetDeleted = DomainEvent<'AssetDeleted', { readonly id: AssetId }>;
/** The whole set of entries after the change, whether it replaced them all or merged some in. */
export type AssetPermissionsSet = DomainEvent<
  'AssetPermissionsSet',
  { readonly assetId: AssetId; readonly entries: readonly PermissionEntry[]; readonly via: 'replace' | 'merge' }
>;
/** Carries the asset's creation time: the caller's stars are walked in the listing's order. */
export type AssetStarred = DomainEvent<'AssetStarred', { readonly assetId: AssetId; readonly userId: string; readonly assetCreatedAt: string }>;
export type AssetUnstarred = DomainEvent<'AssetUnstarred', { readonly assetId: AssetId; readonly userId: string }>;
export type AssetLocked = DomainEvent<'AssetLocked', { readonly assetId: AssetId; readonly lockedBy: string | null; readonly reason: string }>;
export type AssetUnlocked = DomainEvent<'AssetUnlocked', { readonly assetId: AssetId; readonly unlockedBy: string | null }>;
/** The collections holding the asset after an attach or detach (the one that changed named too). */
export type AssetCollectionsChanged = DomainEvent<
  'AssetCollectionsChanged',
  { readonly assetId: AssetId; readonly collectionIds: readonly string[]; readonly added: string | null; readonly removed: string | null }
>;

export type AssetEvent =
  | AssetCreated
  | AssetUpdated
  | AssetOwnerChanged
  | AssetDeleted
  | AssetPermissionsSet
  | AssetStarred
  | AssetUnstarred
  | AssetLocked
  | AssetUnlocked
  | AssetCollectionsChanged
  | AssetMigrationEvent;

export const assetEventTypes = [
  'AssetCreated',
  'AssetUpdated',
  'AssetOwnerChanged',
  'AssetDeleted',
  'AssetPermissionsSet',
  'AssetStarred',
  'AssetUnstarred',
  'AssetLocked',
  'AssetUnlocked',
  'AssetCollectionsChanged',
  ...assetMigrationEventTypes,
] as const satisfies readonly AssetEvent['type'][];
