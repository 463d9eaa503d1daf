import type { assets } from '@cairn/domain';
import type { Projection } from '../runner/projection.ts';
import { insert, update } from '../runner/row-ops.ts';

/** Each asset's migration history (interface 4.3, AssetBucketMigration of DECISIONS.md 4). */
export const assetMigrationsProjection: Projection = {
  name: 'asset-migrations',
  version: 1,
  handles: [...(['AssetMigrationStarted', 'AssetMigrationRunning', 'AssetMigrationFailed', 'AssetMigrationRetried', 'AssetMigrationSucceeded'] as const)],
  tables: ['asset_migrations'],
  project(recorded) {
    const event = { type: recorded.type, data: recorded.data } as assets.AssetMigrationEvent;
    const at = recorded.metadata.occurredAt;
    const id = event.data.migrationId;
    switch (event.type) {
      case 'AssetMigrationStarted': {
        const d = event.data;
        return [
          insert(
            'asset_migrations',
            { id, asset_id: d.assetId, source_repository_id: d.sourceRepositoryId, target_repository_id: d.targetRepositoryId, status: 'pending', created_at: at, updated_at: at },
            { key: ['id'] },
          ),
        ];
      }
      case 'AssetMigrationRunning':
        return [update('asset_migrations', { id }, { status: 'running', attempts: event.data.attempt, updated_at: at })];
      case 'AssetMigrationFailed':
        return [update('asset_migrations', { id }, { status: event.data.retrying ? 'pending' : 'failed', attempts: event.data.attempts, error: event.data.error, updated_at: at })];
      case 'AssetMigrationRetried':
        return [update('asset_migrations', { id }, { status: 'pending', updated_at: at })];
      case 'AssetMigrationSucceeded':
        return [update('asset_migrations', { id }, { status: 'succeeded', error: null, moved_content: event.data.movedContent, updated_at: at })];
    }
  },
};
