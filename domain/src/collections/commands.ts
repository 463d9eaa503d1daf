import type { AssetAuthority } from '../assets/access.ts';
import type { PermissionEntry } from '../assets/events.ts';
import type { CollectionDetails, CollectionId, CollectionOwnerType } from './events.ts';

/**
 * Issued only as the consequence of a project decision (its creation), which already
 * checked who may act: this command carries no authority of its own.
 */
export type CreateRootCollection = {
  readonly type: 'CreateRootCollection';
  readonly id: CollectionId;
  readonly projectId: string;
  readonly title: string;
};

/** A user's root collection, made on first need (its id derives from the user's). */
export type CreateUserRootCollection = { readonly type: 'CreateUserRootCollection'; readonly id: CollectionId; readonly userId: string; readonly title: string };

/** Issued only when the owning project is deleted. */
export type DeleteRootCollection = {
  readonly type: 'DeleteRootCollection';
  readonly id: CollectionId;
  readonly projectId: string;
};

/**
 * The caller's flags on the collection (and on a parent) come from the read model: what
 * flows down the tree is not in the collection's own stream.
 */
export type CreateCollection = {
  readonly type: 'CreateCollection';
  readonly id: CollectionId;
  readonly details: CollectionDetails;
  readonly owner: { readonly ownerType: CollectionOwnerType; readonly ownerId: string };
  readonly parentId: string;
  readonly parentFlags: number;
  readonly authority: AssetAuthority;
};
export type ChangeCollection = {
  readonly type: 'ChangeCollection';
  readonly id: CollectionId;
  readonly changes: Partial<CollectionDetails>;
  readonly flags: number;
  /** The provenance token the client last saw (If-Match), if it sent one. */
  readonly ifMatch?: string | undefined;
};
export type MoveCollection = {
  readonly type: 'MoveCollection';
  readonly id: CollectionId;
  readonly parentId: string;
  /** The new parent's ancestors, root first, read under the tree's lock. */
  readonly parentAncestors: readonly string[];
  readonly flags: number;
  readonly parentFlags: number;
  readonly ifMatch?: string | undefined;
};
export type DeleteCollection = {
  readonly type: 'DeleteCollection';
  readonly id: CollectionId;
  readonly flags: number;
  /** Set on the sub-collections of a recursive deletion, whose top was checked. */
  readonly cascaded: boolean;
  readonly recursive: boolean;
  readonly empty: boolean;
};
export type ReplaceCollectionPermissions = { readonly type: 'ReplaceCollectionPermissions'; readonly id: CollectionId; readonly entries: readonly PermissionEntry[]; readonly flags: number };

export type CollectionCommand =
  | CreateRootCollection
  | CreateUserRootCollection
  | DeleteRootCollection
  | CreateCollection
  | ChangeCollection
  | MoveCollection
  | DeleteCollection
  | ReplaceCollectionPermissions;
