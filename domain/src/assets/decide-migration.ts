import { assertNever } from '../shared/decider.ts';
import type { AssetMigrationCommand } from './commands.ts';
import type { AssetMigrationEvent } from './migrations.ts';
import { migrationErrors, migrationUnderWay, type Migrations } from './migrations.ts';

/** The migration steps, once the asset's flags and lock were checked by the asset decider. */
export function decideMigration(command: AssetMigrationCommand, migrations: Migrations): readonly AssetMigrationEvent[] {
  const { id: assetId, migrationId } = command;
  if (command.type === 'StartAssetMigration') {
    if (migrations.byId.has(migrationId)) return [];
    if (migrationUnderWay(migrations)) throw migrationErrors.underWay();
    const { sourceRepositoryId, targetRepositoryId } = command;
    return [{ type: 'AssetMigrationStarted', data: { assetId, migrationId, sourceRepositoryId, targetRepositoryId } }];
  }
  const migration = migrations.byId.get(migrationId);
  if (!migration) throw migrationErrors.notFound();
  switch (command.type) {
    case 'RetryAssetMigration':
      if (migration.status !== 'failed') throw migrationErrors.notFailed();
      // A newer migration replaced this one: retrying the old one would fight it for the flag.
      if (migrations.latest !== migrationId) throw migrationErrors.superseded();
      if (migrationUnderWay(migrations)) throw migrationErrors.underWay();
      return [{ type: 'AssetMigrationRetried', data: { assetId, migrationId, retry: migration.retries + 1 } }];
    // The worker's steps: a step that no longer applies (a job delivered twice) records nothing.
    // A job delivered again after its worker died (a stalled job, an expired lease) takes the run over.
    case 'RunAssetMigration':
      return migration.status === 'pending' || migration.status === 'running' ? [{ type: 'AssetMigrationRunning', data: { assetId, migrationId, attempt: migration.attempts + 1 } }] : [];
    case 'FailAssetMigration':
      if (migration.status !== 'running') return [];
      return [{ type: 'AssetMigrationFailed', data: { assetId, migrationId, attempts: migration.attempts, error: command.error.slice(0, 2000), retrying: command.retrying } }];
    case 'CompleteAssetMigration':
      return migration.status === 'running' ? [{ type: 'AssetMigrationSucceeded', data: { assetId, migrationId, movedContent: command.movedContent } }] : [];
    default:
      return assertNever(command);
  }
}
