import { assets } from '@cairn/domain';
import type { Projection } from '../runner/projection.ts';
import { insert, remove, update } from '../runner/row-ops.ts';

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
  tables: ['asset_stars', 'asset_permissions', 'assets'],
  project(recorded) {
    const event = { type: recorded.type, data: recorded.data } as Event;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'AssetCreated': {
        const d = event.data;
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
        ];
      }
      case 'AssetUpdated':
        return [update('assets', { id: event.data.id }, { ...detailColumns(event.data.changes), updated_at: at })];
      case 'AssetOwnerChanged': {
        const { id, ownerType, ownerId } = event.data;
        return [update('assets', { id }, { owner_type: ownerType, owner_id: ownerId, owner_grants: { ...assets.ownerGrants({ ownerType, ownerId }) }, updated_at: at })];
      }
      case 'AssetDeleted': {
        const id = event.data.id;
        return [remove('asset_stars', { asset_id: id }), remove('asset_permissions', { asset_id: id }), remove('assets', { id })];
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
        return [insert('asset_stars', { user_id: userId, asset_id: assetId, asset_created_at: assetCreatedAt, starred_at: at }, { key: ['user_id', 'asset_id'] })];
      }
      case 'AssetUnstarred':
        return [remove('asset_stars', { user_id: event.data.userId, asset_id: event.data.assetId })];
      case 'AssetLocked':
        return [update('assets', { id: event.data.assetId }, { is_locked: true, locked_by: event.data.lockedBy, locked_at: at, lock_reason: event.data.reason, updated_at: at })];
      case 'AssetCollectionsChanged':
        return [update('assets', { id: event.data.assetId }, { collection_ids: [...event.data.collectionIds] })];
      case 'AssetUnlocked':
        return [update('assets', { id: event.data.assetId }, { is_locked: false, locked_by: null, locked_at: null, lock_reason: '', updated_at: at })];
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
