import type { ChangeAction, ChangeKind } from '@cairn/contract';
import { assetNotes, assetRelationships, assets, collections, permissionBits, storage } from '@cairn/domain';
import type { GlobalPosition, RecordedEvent } from '@cairn/platform';

/**
 * What a change needs the reader to hold: a flag on an asset (content and notes have their
 * own flags, DECISIONS.md 2) or on a collection.
 */
export type ChangeGate = { readonly on: 'asset'; readonly id: string; readonly flag: number } | { readonly on: 'collection'; readonly id: string; readonly flag: number };

/** A change before it meets a reader: what it says, and what reading it needs. */
export type ChangeCandidate = {
  readonly position: GlobalPosition;
  readonly kind: ChangeKind;
  readonly id: string;
  readonly assetId: string | null;
  readonly action: ChangeAction;
  readonly occurredAt: string;
  readonly gate: ChangeGate;
  /** Assets the reader must also see (a relationship's target: its id is not disclosed otherwise). */
  readonly alsoReadable?: readonly string[];
  readonly fields: Readonly<Record<string, unknown>>;
  /** Fields holding collection ids: only those the reader may see are sent. */
  readonly collectionRefs?: { readonly field: 'collection_ids' | 'parent_id' };
};

const read = permissionBits.READ_METADATA;

/** Every event type the feed turns into a change: what the log is read for. */
export const changeEventTypes: readonly string[] = [
  ...assets.assetEventTypes.filter((t) => t !== 'AssetStarred' && t !== 'AssetUnstarred'),
  ...storage.contentEventTypes,
  ...assetNotes.noteEventTypes,
  ...assetNotes.markdownNoteEventTypes,
  ...assetRelationships.relationshipEventTypes,
  ...collections.collectionEventTypes,
];

const assetFieldNames: Readonly<Record<keyof assets.AssetDetails, string>> = { title: 'title', alias: 'alias', description: 'description', recordType: 'record_type', tags: 'tags', metadata: 'metadata' };
const collectionFieldNames: Readonly<Record<keyof collections.CollectionDetails, string>> = {
  title: 'title',
  description: 'description',
  alias: 'alias',
  tags: 'tags',
  type: 'type',
  license: 'license',
  preferredRepositoryId: 'preferred_repository_id',
};

function renamed<K extends string>(values: Partial<Record<K, unknown>>, names: Readonly<Record<K, string>>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) fields[names[key as K] ?? key] = value;
  return fields;
}

type Base = Pick<ChangeCandidate, 'position' | 'occurredAt'>;

const onAsset = (base: Base, assetId: string, action: ChangeAction, fields: Record<string, unknown>, extra: Partial<ChangeCandidate> = {}): ChangeCandidate => ({
  ...base,
  kind: 'asset',
  id: assetId,
  assetId,
  action,
  gate: { on: 'asset', id: assetId, flag: read },
  fields,
  ...extra,
});

const underAsset = (base: Base, kind: ChangeKind, id: string, assetId: string, action: ChangeAction, flag: number, fields: Record<string, unknown>): ChangeCandidate => ({
  ...base,
  kind,
  id,
  assetId,
  action,
  gate: { on: 'asset', id: assetId, flag },
  fields,
});

const onCollection = (base: Base, id: string, action: ChangeAction, fields: Record<string, unknown>, refs = false): ChangeCandidate => ({
  ...base,
  kind: 'collection',
  id,
  assetId: null,
  action,
  gate: { on: 'collection', id, flag: read },
  fields,
  ...(refs ? { collectionRefs: { field: 'parent_id' as const } } : {}),
});

function assetChange(base: Base, event: assets.AssetEvent): ChangeCandidate | null {
  switch (event.type) {
    case 'AssetCreated': {
      const { id, createdAt, collectionId, ownerType, ownerId, ...details } = event.data;
      const fields = { ...renamed(details, assetFieldNames), owner_type: ownerType, owner_id: ownerId, collection_ids: collectionId ? [collectionId] : [], created_at: createdAt };
      return onAsset(base, id, 'created', fields, { collectionRefs: { field: 'collection_ids' } });
    }
    case 'AssetUpdated':
      return onAsset(base, event.data.id, 'updated', renamed(event.data.changes, assetFieldNames));
    case 'AssetOwnerChanged':
      return onAsset(base, event.data.id, 'access_changed', { owner_type: event.data.ownerType, owner_id: event.data.ownerId });
    case 'AssetDeleted':
      return onAsset(base, event.data.id, 'deleted', {});
    case 'AssetPermissionsSet':
      return onAsset(base, event.data.assetId, 'access_changed', {});
    case 'AssetCollectionsChanged':
      return onAsset(base, event.data.assetId, 'access_changed', { collection_ids: [...event.data.collectionIds] }, { collectionRefs: { field: 'collection_ids' } });
    case 'AssetLocked':
      return onAsset(base, event.data.assetId, 'updated', { is_locked: true, locked_by: event.data.lockedBy, lock_reason: event.data.reason });
    case 'AssetUnlocked':
      return onAsset(base, event.data.assetId, 'updated', { is_locked: false, locked_by: null, lock_reason: '' });
    case 'AssetMigrationStarted':
      return onAsset(base, event.data.assetId, 'updated', { is_migrating: true });
    case 'AssetMigrationSucceeded':
      return onAsset(base, event.data.assetId, 'updated', { is_migrating: false });
    // A caller's own stars, and the steps of a migration, are not changes of the asset's fields.
    case 'AssetStarred':
    case 'AssetUnstarred':
    case 'AssetMigrationRunning':
    case 'AssetMigrationFailed':
    case 'AssetMigrationRetried':
      return null;
  }
}

function contentChange(base: Base, event: storage.ContentEvent): ChangeCandidate {
  const flag = permissionBits.READ_CONTENT;
  const d = event.data;
  switch (event.type) {
    case 'ContentAdded': {
      const a = event.data;
      const fields = { repository_id: a.repositoryId, allocation_id: a.allocationId, key: a.key, filename: a.filename, size: a.size, sha256: a.sha256, content_type: a.contentType, origin: a.origin };
      return underAsset(base, 'content', d.id, d.assetId, 'created', flag, fields);
    }
    case 'ContentMetadataExtracted': {
      const x = event.data;
      return underAsset(base, 'content', d.id, d.assetId, 'updated', flag, { metadata: x.metadata, metadata_status: x.status, metadata_error: x.error, metadata_extracted_at: x.extractedAt });
    }
    case 'ContentMoved':
      return underAsset(base, 'content', d.id, d.assetId, 'updated', flag, { repository_id: event.data.to.repositoryId, allocation_id: event.data.to.allocationId, key: event.data.to.key });
    case 'ContentRemoved':
      return underAsset(base, 'content', d.id, d.assetId, 'deleted', flag, {});
  }
}

function noteChange(base: Base, event: assetNotes.NoteEvent | assetNotes.MarkdownNoteEvent): ChangeCandidate {
  const flag = permissionBits.READ_NOTES;
  const assetId = event.data.assetId;
  switch (event.type) {
    case 'NoteAdded':
      return underAsset(base, 'note', event.data.noteId, assetId, 'created', flag, { content: event.data.content, author_id: event.data.authorId });
    case 'NoteEdited':
      return underAsset(base, 'note', event.data.noteId, assetId, 'updated', flag, { content: event.data.content });
    case 'NoteDeleted':
      return underAsset(base, 'note', event.data.noteId, assetId, 'deleted', flag, {});
    case 'MarkdownNoteCreated':
      return underAsset(base, 'markdown_note', assetId, assetId, 'created', flag, { content: event.data.content, author_id: event.data.authorId });
    case 'MarkdownNoteUpdated':
      return underAsset(base, 'markdown_note', assetId, assetId, 'updated', flag, { content: event.data.content });
    case 'MarkdownNoteDeleted':
      return underAsset(base, 'markdown_note', assetId, assetId, 'deleted', flag, {});
  }
}

function relationshipChange(base: Base, event: assetRelationships.RelationshipEvent): ChangeCandidate {
  if (event.type === 'RelationshipRemoved') return underAsset(base, 'relationship', event.data.id, event.data.fromAssetId, 'deleted', read, {});
  const d = event.data;
  return {
    ...underAsset(base, 'relationship', d.id, d.fromAssetId, 'created', read, { from_asset_id: d.fromAssetId, to_asset_id: d.toAssetId, relationship_type: d.relationshipType }),
    alsoReadable: [d.toAssetId],
  };
}

function collectionChange(base: Base, event: collections.CollectionEvent): ChangeCandidate {
  switch (event.type) {
    case 'CollectionCreated': {
      const { id, parentId, ownerType, ownerUserId, ownerProjectId, isRoot, revision: _revision, ...details } = event.data;
      const fields = { ...renamed(details, collectionFieldNames), parent_id: parentId, owner_type: ownerType, owner_user_id: ownerUserId, owner_project_id: ownerProjectId, is_root: isRoot };
      return onCollection(base, id, 'created', fields, true);
    }
    case 'CollectionUpdated':
      return onCollection(base, event.data.id, 'updated', renamed(event.data.changes, collectionFieldNames));
    case 'CollectionMoved':
      return onCollection(base, event.data.id, 'access_changed', { parent_id: event.data.parentId }, true);
    case 'CollectionPermissionsSet':
      return onCollection(base, event.data.id, 'access_changed', {});
    case 'CollectionDeleted':
      return onCollection(base, event.data.id, 'deleted', {});
  }
}

const assetTypes = new Set<string>(assets.assetEventTypes);
const contentTypes = new Set<string>(storage.contentEventTypes);
const noteTypes = new Set<string>([...assetNotes.noteEventTypes, ...assetNotes.markdownNoteEventTypes]);
const relationshipTypes = new Set<string>(assetRelationships.relationshipEventTypes);
const collectionTypes = new Set<string>(collections.collectionEventTypes);

/** The change one logged event is, if it is one the feed carries (pure; docs/changes.md lists them). */
export function changeCandidate(event: RecordedEvent): ChangeCandidate | null {
  const base: Base = { position: event.position, occurredAt: event.metadata.occurredAt };
  const typed = { type: event.type, data: event.data };
  if (assetTypes.has(event.type)) return assetChange(base, typed as assets.AssetEvent);
  if (contentTypes.has(event.type)) return contentChange(base, typed as storage.ContentEvent);
  if (noteTypes.has(event.type)) return noteChange(base, typed as assetNotes.NoteEvent | assetNotes.MarkdownNoteEvent);
  if (relationshipTypes.has(event.type)) return relationshipChange(base, typed as assetRelationships.RelationshipEvent);
  if (collectionTypes.has(event.type)) return collectionChange(base, typed as collections.CollectionEvent);
  return null;
}
