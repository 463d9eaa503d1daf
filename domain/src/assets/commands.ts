import type { AssetAuthority } from './access.ts';
import type { AssetDetails, AssetId, AssetOwner, PermissionEntry } from './events.ts';

/** Every asset command names its asset and carries who the caller is (principals read by the route). */
type AssetCommandOf<T extends string, Fields = unknown> = { readonly type: T; readonly id: AssetId; readonly authority: AssetAuthority } & Fields;

export type CreateAsset = AssetCommandOf<
  'CreateAsset',
  {
    readonly details: AssetDetails;
    readonly owner: AssetOwner;
    /** The collection to put it in, with the caller's flags there (read by the route). */
    readonly collection: { readonly id: string; readonly flags: number } | null;
  }
>;
export type ChangeAsset = AssetCommandOf<'ChangeAsset', { readonly changes: Partial<AssetDetails>; readonly owner?: AssetOwner | undefined }>;
export type DeleteAsset = AssetCommandOf<'DeleteAsset'>;
export type ReplaceAssetPermissions = AssetCommandOf<'ReplaceAssetPermissions', { readonly entries: readonly PermissionEntry[] }>;
export type MergeAssetPermissions = AssetCommandOf<'MergeAssetPermissions', { readonly entries: readonly PermissionEntry[] }>;
export type StarAsset = AssetCommandOf<'StarAsset'>;
export type UnstarAsset = AssetCommandOf<'UnstarAsset'>;
export type LockAsset = AssetCommandOf<'LockAsset', { readonly locked: boolean; readonly reason: string }>;

/** Attach to or detach from a collection: the caller's flags on the collection come from the read model. */
export type AttachToCollection = AssetCommandOf<'AttachToCollection', { readonly collectionId: string; readonly collectionFlags: number }>;
export type DetachFromCollection = AssetCommandOf<'DetachFromCollection', { readonly collectionId: string; readonly collectionFlags: number }>;

/** Interface 3 and DECISIONS.md 4: a start and a retry need WRITE_CONTENT; the rest is the worker's. */
export type StartAssetMigration = AssetCommandOf<'StartAssetMigration', { readonly migrationId: string; readonly sourceRepositoryId: string | null; readonly targetRepositoryId: string }>;
export type RetryAssetMigration = AssetCommandOf<'RetryAssetMigration', { readonly migrationId: string }>;
export type RunAssetMigration = AssetCommandOf<'RunAssetMigration', { readonly migrationId: string }>;
export type FailAssetMigration = AssetCommandOf<'FailAssetMigration', { readonly migrationId: string; readonly error: string; readonly retrying: boolean }>;
export type CompleteAssetMigration = AssetCommandOf<'CompleteAssetMigration', { readonly migrationId: string; readonly movedContent: number }>;
export type AssetMigrationCommand = StartAssetMigration | RetryAssetMigration | RunAssetMigration | FailAssetMigration | CompleteAssetMigration;

export type AssetCommand =
  | CreateAsset
  | ChangeAsset
  | DeleteAsset
  | ReplaceAssetPermissions
  | MergeAssetPermissions
  | StarAsset
  | UnstarAsset
  | LockAsset
  | AttachToCollection
  | DetachFromCollection
  | AssetMigrationCommand;
