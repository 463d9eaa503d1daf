import type { DomainEvent } from '../shared/events.ts';
import { DomainError, forbidden, invalid, notFound } from '../shared/errors.ts';
import { lackedPermissions, permissionBits, type PermissionName } from '../shared/permissions.ts';

/**
 * A content record of an asset (stream `content-<id>`): where its bytes are, what they are,
 * and what was extracted from them. Its allocation's charge is appended with it.
 */
export type ContentLocation = { readonly repositoryId: string; readonly key: string; readonly allocationId: string };

export type ContentAdded = DomainEvent<
  'ContentAdded',
  ContentLocation & {
    readonly id: string;
    readonly assetId: string;
    readonly filename: string;
    readonly size: number;
    readonly sha256: string;
    readonly contentType: string;
    /** `upload`: bytes sent through the API; `reference`: an object already in the repository. */
    readonly origin: 'upload' | 'reference';
    /** An extraction job was recorded with it (false where the deployment disables extraction). */
    readonly extractionQueued: boolean;
  }
>;
export type ContentMetadataExtracted = DomainEvent<
  'ContentMetadataExtracted',
  {
    readonly id: string;
    readonly assetId: string;
    readonly status: 'succeeded' | 'failed';
    readonly metadata: Readonly<Record<string, unknown>>;
    readonly error: string | null;
    readonly extractedAt: string;
  }
>;
/** A migration switched the record to the copy on the target repository. */
export type ContentMoved = DomainEvent<'ContentMoved', { readonly id: string; readonly assetId: string; readonly migrationId: string; readonly from: ContentLocation; readonly to: ContentLocation }>;
export type ContentRemoved = DomainEvent<'ContentRemoved', ContentLocation & { readonly id: string; readonly assetId: string; readonly size: number }>;

export type ContentEvent = ContentAdded | ContentMetadataExtracted | ContentMoved | ContentRemoved;
export const contentEventTypes = ['ContentAdded', 'ContentMetadataExtracted', 'ContentMoved', 'ContentRemoved'] as const satisfies readonly ContentEvent['type'][];

export const contentLimits = { filename: 255, contentType: 255, key: 1024 } as const;

export const contentErrors = {
  assetNotFound: () => notFound('not_found', 'Asset not found.'),
  contentNotFound: () => notFound('not_found', 'Content not found.'),
  lacks: (name: PermissionName) => forbidden('permission_denied', lackedPermissions([name], 'this asset')),
  locked: () => new DomainError('locked', 'asset_locked', 'The asset is locked; its content cannot change until it is unlocked.'),
  migrating: () => new DomainError('conflict', 'asset_migrating', 'The asset is being migrated; its content cannot change until the migration ends.'),
  invalidFilename: () => invalid('invalid_filename', `A filename is 1 to ${contentLimits.filename} characters, without slashes or control characters.`),
  invalidContentType: () => invalid('invalid_content_type', 'content_type is a media type such as text/csv.'),
  invalidKey: () => invalid('invalid_key', 'key is a relative object key without empty, `.` or `..` parts.'),
  keyOutsideAsset: (prefix: string) =>
    forbidden('permission_denied', `Only a system administrator may record a key outside ${prefix}, where this asset's own objects go; upload the bytes, or put them under that prefix.`),
  keyOfAnotherAsset: () => invalid('invalid_key', "Keys under assets/ hold the service's own objects of each asset; record a key of this asset's prefix, or one outside assets/."),
  noAllocation: () =>
    new DomainError('conflict', 'no_allocation', "The asset's owner has no allocation on this repository: ask an administrator for one, or name another repository."),
};

/** What the caller may do on the asset, read from the asset's read model by the route. */
export type ContentAccess = { readonly flags: number; readonly locked: boolean; readonly migrating: boolean };

/** Hidden assets are not found; then the flag; then the asset's state. */
export function requireContentAccess(access: ContentAccess, need: PermissionName, write: boolean): void {
  if ((access.flags & permissionBits.READ_METADATA) === 0) throw contentErrors.assetNotFound();
  if ((access.flags & permissionBits[need]) === 0) throw contentErrors.lacks(need);
  if (write && access.locked) throw contentErrors.locked();
  if (write && access.migrating) throw contentErrors.migrating();
}

// Names and keys are shown and sent in headers: no control characters.
// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u001f\u007f]/;

export function checkFilename(filename: string): string {
  const name = filename.trim();
  if (name.length === 0 || name.length > contentLimits.filename || name.includes('/') || name.includes('\\') || controlCharacters.test(name) || name === '.' || name === '..') {
    throw contentErrors.invalidFilename();
  }
  return name;
}

export function checkContentType(contentType: string): string {
  const type = contentType.trim().toLowerCase();
  // Parameters too are visible ASCII: the type is sent as a header, where a control
  // character or a character outside Latin-1 cannot go (issue 23).
  if (type.length > contentLimits.contentType || !/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(\s*;[\x20-\x7e]*)?$/.test(type)) throw contentErrors.invalidContentType();
  return type;
}

export function checkObjectKey(key: string): string {
  const parts = key.split('/');
  if (key.length === 0 || key.length > contentLimits.key || key.startsWith('/') || controlCharacters.test(key) || key.includes('\\') || parts.some((p) => p === '' || p === '.' || p === '..')) {
    throw contentErrors.invalidKey();
  }
  return key;
}

/**
 * Every object the service stores for an asset is under this prefix: the bytes of uploads,
 * and what clients send to the upload URLs it hands out. Nothing else writes there.
 */
export const assetKeyPrefix = (assetId: string) => `assets/${assetId}/`;

/** Where the service puts the bytes it receives: unique per record, so deleting one never touches another's. */
export const uploadKeyOf = (assetId: string, contentId: string) => `${assetKeyPrefix(assetId)}${contentId}`;

/**
 * DECISIONS.md 8: who may record an object already in a repository (the caller holds
 * WRITE_CONTENT on the asset; that is checked first). A record makes the object readable by
 * the asset's readers, so a writer may record only what is under the asset's own prefix,
 * where nothing but this asset's objects can be; any other key needs a system administrator,
 * and a key under another asset's prefix (or `assets/` itself) nobody: those are the
 * service's own objects of other assets.
 */
export function checkRecordKey(key: string, assetId: string, isSystemAdmin: boolean): string {
  const checked = checkObjectKey(key);
  const prefix = assetKeyPrefix(assetId);
  if (checked.startsWith(prefix)) return checked;
  if (!isSystemAdmin) throw contentErrors.keyOutsideAsset(prefix);
  if (checked.startsWith('assets/')) throw contentErrors.keyOfAnotherAsset();
  return checked;
}

export const contentStream = (id: string) => `content-${id}`;
