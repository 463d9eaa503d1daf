import { assets } from '@cairn/domain';
import { sql } from 'kysely';
import type { Projection } from '../runner/projection.ts';
import { custom, insert, remove, update, type Copy, type RowOp } from '../runner/row-ops.ts';
import { metadataNumbers, metadataTerms } from './metadata-leaves.ts';
import { textHashes } from './text-hashes.ts';

type Event = assets.AssetEvent;
type Details = Partial<assets.AssetDetails>;

function detailColumns(details: Details) {
  return {
    ...(details.title !== undefined ? { title: details.title } : {}),
    ...(details.alias !== undefined ? { alias: details.alias } : {}),
    ...(details.description !== undefined ? { description: details.description } : {}),
    ...(details.recordType !== undefined ? { record_type: details.recordType } : {}),
    ...(details.tags !== undefined ? { tags: [...details.tags] } : {}),
    ...(details.metadata !== undefined ? { metadata: details.metadata } : {}),
  };
}

const noUser = '00000000-0000-0000-0000-000000000000';

/** The asset's rows of collection_assets follow its sort keys. */
const touchMemberships = (assetId: string, set: { updated_at: string; title?: string }): RowOp => update('collection_assets', { asset_id: assetId }, set);

/**
 * The asset's memberships, remade from its row (which holds the sort keys the event does not
 * carry); a custom step, so it reads the row as the events before it left it.
 */
const remakeMemberships = (assetId: string, collectionIds: readonly string[]): RowOp =>
  custom(async (db) => {
    await sql`delete from collection_assets where asset_id = ${assetId}::uuid`.execute(db);
    if (collectionIds.length === 0) return;
    await sql`insert into collection_assets (collection_id, asset_id, created_at, updated_at, title, creator)
      select held.id, a.id, a.created_at, a.updated_at, a.title, coalesce(a.created_by, ${noUser}::uuid)
      from assets a cross join unnest(${[...collectionIds]}::uuid[]) as held(id) where a.id = ${assetId}::uuid
      on conflict do nothing`.execute(db);
  });

/** The asset's rows of asset_tag_order, one per distinct tag, in the listing's order, each with the asset's record type (migration 0042) and all its tags hashed (0049). */
const tagRows = (assetId: string, createdAt: string, recordType: string, tags: readonly string[]): RowOp[] => {
  const tagHashes = textHashes(tags);
  return [...new Set(tags)].map((tag) => insert('asset_tag_order', { tag, created_at: createdAt, asset_id: assetId, record_type: recordType, tag_hashes: tagHashes }, { key: ['asset_id', 'tag'] }));
};

/** The asset's rows of asset_metadata_order (its metadata's `terms`, metadata-leaves.ts), each with the asset's record type (migration 0042) and its tags hashed (0048). */
const metadataRows = (assetId: string, createdAt: string, recordType: string, tags: readonly string[], terms: readonly string[]): RowOp[] => {
  const tagHashes = textHashes(tags);
  return terms.map((term) => insert('asset_metadata_order', { term, created_at: createdAt, asset_id: assetId, record_type: recordType, tag_hashes: tagHashes }, { key: ['asset_id', 'term'] }));
};

/** The most metadata terms an asset's row, and so its stars' index entries, hold (migration 0053). */
export const keptTermsMost = 32;

/** Terms (bigints as text) in their numeric order. */
const byNumber = (x: string, y: string) => {
  const d = BigInt(x) - BigInt(y);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
};

/**
 * The terms an asset's row keeps for its stars to copy, in their numeric order (the metadata's
 * key order is not kept by the event store's jsonb, so a replay would list them otherwise):
 * null (none known, a star is then a candidate) beyond `keptTermsMost`.
 */
export const keptTerms = (terms: readonly string[]): string[] | null => (terms.length <= keptTermsMost ? [...terms].sort(byNumber) : null);

/** The asset's rows of asset_metadata_numbers (metadata-leaves.ts), each with the asset's record type (migration 0038). */
const numberRows = (assetId: string, createdAt: string, recordType: string, metadata: unknown): RowOp[] =>
  metadataNumbers(metadata).map((n) =>
    insert('asset_metadata_numbers', { path: n.path, value: n.value, created_at: createdAt, asset_id: assetId, record_type: recordType }, { key: ['asset_id', 'path', 'value'] }),
  );

/** The asset's metadata rows (its metadata's `terms`, and its numbers) remade after a change of its metadata, with the creation time and record type its row holds. */
const remakeMetadataRows = (assetId: string, metadata: unknown, terms: readonly string[]): RowOp =>
  custom(async (db) => {
    await sql`delete from asset_metadata_order where asset_id = ${assetId}::uuid`.execute(db);
    await sql`delete from asset_metadata_numbers where asset_id = ${assetId}::uuid`.execute(db);
    if (terms.length > 0) {
      await sql`insert into asset_metadata_order (term, created_at, asset_id, record_type, tag_hashes)
        select t, a.created_at, a.id, a.record_type, coalesce(cairn_text_hashes(a.tags), '{}') from assets a cross join unnest(${[...terms]}::bigint[]) t where a.id = ${assetId}::uuid`.execute(db);
    }
    const numbers = metadataNumbers(metadata);
    if (numbers.length > 0) {
      await sql`insert into asset_metadata_numbers (path, value, created_at, asset_id, record_type)
        select n.path, n.value, a.created_at, a.id, a.record_type from assets a
        cross join unnest(${numbers.map((n) => n.path)}::bigint[], ${numbers.map((n) => n.value)}::numeric[]) n(path, value) where a.id = ${assetId}::uuid`.execute(db);
    }
  });

/**
 * What a star holds of its asset, for the starred part's walks to check on the star's entry:
 * the lowercased title and alias (migration 0040), the record type and the tags (0041), the
 * owner and the metadata terms (0053), copied from the asset's row as the events before left
 * it (the events do not carry them); null when there is no such row, which a walk then takes
 * as a candidate. Plain row operations, so that a star stays one round trip inline and a
 * batch's stars one statement. A change copies only what it changed: an asset written before
 * 0053 holds no terms (null), and a new title must not wipe those its stars were given then.
 */
const starColumns = { text: { search_text: 'search_text', record_type: 'record_type', tags: 'tags' }, owner: { owner_id: 'owner_id' }, terms: { metadata_terms: 'metadata_terms' } } as const;
const starCopyOf = (...parts: (keyof typeof starColumns)[]): Copy => ({ from: 'assets', match: { id: 'asset_id' }, columns: Object.assign({}, ...parts.map((part) => starColumns[part])) as Record<string, string> });
const starCopy = starCopyOf('text', 'owner', 'terms');

/** The stars' copies an AssetUpdated refreshes: its text, record type and tags when one changed, its terms when the metadata did. */
const starCopyAfter = (text: boolean, terms: boolean, assetId: string): RowOp[] =>
  text || terms ? [update('asset_stars', { asset_id: assetId }, {}, { copy: starCopyOf(...(text ? (['text'] as const) : []), ...(terms ? (['terms'] as const) : [])) })] : [];

/** The asset's tag rows remade from its row, which holds the creation time and record type the event does not carry. */
const remakeTagRows = (assetId: string): RowOp =>
  custom(async (db) => {
    await sql`delete from asset_tag_order where asset_id = ${assetId}::uuid`.execute(db);
    await sql`insert into asset_tag_order (tag, created_at, asset_id, record_type, tag_hashes)
      select distinct t.tag, a.created_at, a.id, a.record_type, coalesce(cairn_text_hashes(a.tags), '{}') from assets a cross join unnest(a.tags) as t(tag) where a.id = ${assetId}::uuid`.execute(db);
  });

/**
 * Assets with who may read them (docs/assets.md), their permission entries and the
 * callers' stars. Every row belongs to the asset's own stream: inline appends of
 * different assets never touch the same rows, so the projection need not be serialized.
 */
export const assetsProjection: Projection = {
  name: 'assets',
  // Collection membership (AssetCollectionsChanged) came without a rebuild: no such events existed before.
  version: 1,
  handles: [...assets.assetEventTypes],
  tables: ['asset_stars', 'asset_permissions', 'collection_assets', 'asset_tag_order', 'asset_metadata_order', 'asset_metadata_numbers', 'assets'],
  project(recorded) {
    const event = { type: recorded.type, data: recorded.data } as Event;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'AssetCreated': {
        const d = event.data;
        const terms = metadataTerms(d.metadata);
        return [
          insert(
            'assets',
            {
              id: d.id,
              title: d.title,
              alias: d.alias,
              description: d.description,
              record_type: d.recordType,
              tags: [...d.tags],
              metadata: d.metadata,
              metadata_terms: keptTerms(terms),
              owner_type: d.ownerType,
              owner_id: d.ownerId,
              collection_ids: d.collectionId ? [d.collectionId] : [],
              owner_grants: { ...assets.ownerGrants(d) },
              entry_grants: {},
              created_by: recorded.metadata.actorId,
              created_at: d.createdAt,
              updated_at: d.createdAt,
            },
            { key: ['id'] },
          ),
          ...tagRows(d.id, d.createdAt, d.recordType, d.tags),
          ...metadataRows(d.id, d.createdAt, d.recordType, d.tags, terms),
          ...numberRows(d.id, d.createdAt, d.recordType, d.metadata),
          ...(d.collectionId
            ? [
                insert(
                  'collection_assets',
                  { collection_id: d.collectionId, asset_id: d.id, created_at: d.createdAt, updated_at: d.createdAt, title: d.title, creator: recorded.metadata.actorId ?? noUser },
                  { key: ['collection_id', 'asset_id'] },
                ),
              ]
            : []),
        ];
      }
      case 'AssetUpdated': {
        const { id, changes } = event.data;
        const terms = changes.metadata !== undefined ? metadataTerms(changes.metadata) : undefined;
        return [
          update('assets', { id }, { ...detailColumns(changes), ...(terms !== undefined ? { metadata_terms: keptTerms(terms) } : {}), updated_at: at }),
          touchMemberships(id, { updated_at: at, ...(changes.title !== undefined ? { title: changes.title } : {}) }),
          ...starCopyAfter(changes.title !== undefined || changes.alias !== undefined || changes.recordType !== undefined || changes.tags !== undefined, terms !== undefined, id),
          ...(changes.tags !== undefined ? [remakeTagRows(id)] : []),
          // New tags without new metadata: the metadata postings that hold them hashed follow (remade ones read them from the row).
          ...(changes.tags !== undefined && changes.metadata === undefined ? [update('asset_metadata_order', { asset_id: id }, { tag_hashes: textHashes(changes.tags) })] : []),
          ...(terms !== undefined ? [remakeMetadataRows(id, changes.metadata, terms)] : []),
          // A new record type without new tags or metadata: the postings that hold it follow (remade ones read it from the row).
          ...(changes.recordType !== undefined && changes.tags === undefined ? [update('asset_tag_order', { asset_id: id }, { record_type: changes.recordType })] : []),
          ...(changes.recordType !== undefined && changes.metadata === undefined
            ? [update('asset_metadata_order', { asset_id: id }, { record_type: changes.recordType }), update('asset_metadata_numbers', { asset_id: id }, { record_type: changes.recordType })]
            : []),
        ];
      }
      case 'AssetOwnerChanged': {
        const { id, ownerType, ownerId } = event.data;
        return [
          update('assets', { id }, { owner_type: ownerType, owner_id: ownerId, owner_grants: { ...assets.ownerGrants({ ownerType, ownerId }) }, updated_at: at }),
          touchMemberships(id, { updated_at: at }),
          update('asset_stars', { asset_id: id }, {}, { copy: starCopyOf('owner') }),
        ];
      }
      case 'AssetDeleted': {
        const id = event.data.id;
        return [remove('asset_stars', { asset_id: id }), remove('asset_permissions', { asset_id: id }), remove('collection_assets', { asset_id: id }), remove('asset_tag_order', { asset_id: id }), remove('asset_metadata_order', { asset_id: id }), remove('asset_metadata_numbers', { asset_id: id }), remove('assets', { id })];
      }
      case 'AssetPermissionsSet': {
        const { assetId, entries } = event.data;
        return [
          remove('asset_permissions', { asset_id: assetId }),
          ...entries.map((e) =>
            insert('asset_permissions', { asset_id: assetId, subject_type: e.subjectType, subject_key: e.subjectId ?? 'public', flags: e.flags }, { key: ['asset_id', 'subject_type', 'subject_key'] }),
          ),
          update('assets', { id: assetId }, { entry_grants: { ...assets.entryGrants(entries) } }),
        ];
      }
      case 'AssetStarred': {
        const { assetId, userId, assetCreatedAt } = event.data;
        return [insert('asset_stars', { user_id: userId, asset_id: assetId, asset_created_at: assetCreatedAt, starred_at: at }, { key: ['user_id', 'asset_id'], copy: starCopy })];
      }
      case 'AssetUnstarred':
        return [remove('asset_stars', { user_id: event.data.userId, asset_id: event.data.assetId })];
      case 'AssetLocked':
        return [
          update('assets', { id: event.data.assetId }, { is_locked: true, locked_by: event.data.lockedBy, locked_at: at, lock_reason: event.data.reason, updated_at: at }),
          touchMemberships(event.data.assetId, { updated_at: at }),
        ];
      case 'AssetCollectionsChanged':
        return [update('assets', { id: event.data.assetId }, { collection_ids: [...event.data.collectionIds] }), remakeMemberships(event.data.assetId, event.data.collectionIds)];
      case 'AssetUnlocked':
        return [
          update('assets', { id: event.data.assetId }, { is_locked: false, locked_by: null, locked_at: null, lock_reason: '', updated_at: at }),
          touchMemberships(event.data.assetId, { updated_at: at }),
        ];
      // is_migrating: from a start until that migration succeeds (a failure keeps it; assets/migrations.ts).
      case 'AssetMigrationStarted':
        return [update('assets', { id: event.data.assetId }, { is_migrating: true })];
      case 'AssetMigrationSucceeded':
        return [update('assets', { id: event.data.assetId }, { is_migrating: false })];
      case 'AssetMigrationRunning':
      case 'AssetMigrationFailed':
      case 'AssetMigrationRetried':
        return [];
    }
  },
};
