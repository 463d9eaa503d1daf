import type { DomainEvent } from '../shared/events.ts';
import { conflict, invalid, notFound } from '../shared/errors.ts';
import type { AssetId } from './events.ts';

/**
 * A migration moves an asset's content to another repository (interface 3, docs/storage.md).
 * Its events are on the asset's own stream: starting one is decided against the lock and
 * the migration already under way, and `is_migrating` is a field of the asset.
 */
export type MigrationStatus = 'pending' | 'running' | 'succeeded' | 'failed';

type MigrationRef = { readonly assetId: AssetId; readonly migrationId: string };

export type AssetMigrationStarted = DomainEvent<'AssetMigrationStarted', MigrationRef & { readonly sourceRepositoryId: string | null; readonly targetRepositoryId: string }>;
/** A worker took it up: `attempt` counts every run, across retries. */
export type AssetMigrationRunning = DomainEvent<'AssetMigrationRunning', MigrationRef & { readonly attempt: number }>;
/** A run failed; `retrying` when the job queue will run it again by itself (status stays pending). */
export type AssetMigrationFailed = DomainEvent<'AssetMigrationFailed', MigrationRef & { readonly attempts: number; readonly error: string; readonly retrying: boolean }>;
export type AssetMigrationRetried = DomainEvent<'AssetMigrationRetried', MigrationRef & { readonly retry: number }>;
export type AssetMigrationSucceeded = DomainEvent<'AssetMigrationSucceeded', MigrationRef & { readonly movedContent: number }>;

export type AssetMigrationEvent = AssetMigrationStarted | AssetMigrationRunning | AssetMigrationFailed | AssetMigrationRetried | AssetMigrationSucceeded;
export const assetMigrationEventTypes = [
  'AssetMigrationStarted',
  'AssetMigrationRunning',
  'AssetMigrationFailed',
  'AssetMigrationRetried',
  'AssetMigrationSucceeded',
] as const satisfies readonly AssetMigrationEvent['type'][];

export type MigrationState = {
  readonly status: MigrationStatus;
  readonly attempts: number;
  readonly retries: number;
  readonly targetRepositoryId: string;
};

export const migrationErrors = {
  notFound: () => notFound('not_found', 'Migration not found.'),
  underWay: () => conflict('migration_in_progress', 'A migration of this asset is already pending or running.'),
  notFailed: () => conflict('migration_not_failed', 'Only a failed migration can be retried.'),
  superseded: () => conflict('migration_superseded', 'A newer migration of this asset replaced this one; retry that one instead.'),
  sameRepository: () => invalid('invalid_target_repository_id', "The asset's content is already on this repository."),
};

export type Migrations = { readonly byId: ReadonlyMap<string, MigrationState>; readonly latest: string | null };
export const noMigrations: Migrations = { byId: new Map(), latest: null };

/** The migration that blocks content writes and another start: one pending or running. */
export function migrationUnderWay(migrations: Migrations): boolean {
  return [...migrations.byId.values()].some((m) => m.status === 'pending' || m.status === 'running');
}

/**
 * `is_migrating` (interface 3): from a start until it succeeds, a failure included (a retry
 * keeps it true). A newer migration started after a failed one takes over the flag.
 */
export function isMigrating(migrations: Migrations): boolean {
  const latest = migrations.latest ? migrations.byId.get(migrations.latest) : undefined;
  return migrationUnderWay(migrations) || latest?.status === 'failed';
}

export function evolveMigrations(migrations: Migrations, event: AssetMigrationEvent): Migrations {
  const byId = new Map(migrations.byId);
  const current = byId.get(event.data.migrationId);
  const set = (change: Partial<MigrationState>) => {
    if (current) byId.set(event.data.migrationId, { ...current, ...change });
    return { byId, latest: migrations.latest };
  };
  switch (event.type) {
    case 'AssetMigrationStarted':
      byId.set(event.data.migrationId, { status: 'pending', attempts: 0, retries: 0, targetRepositoryId: event.data.targetRepositoryId });
      return { byId, latest: event.data.migrationId };
    case 'AssetMigrationRunning':
      return set({ status: 'running', attempts: event.data.attempt });
    case 'AssetMigrationFailed':
      return set({ status: event.data.retrying ? 'pending' : 'failed', attempts: event.data.attempts });
    case 'AssetMigrationRetried':
      return set({ status: 'pending', retries: event.data.retry });
    case 'AssetMigrationSucceeded':
      return set({ status: 'succeeded' });
  }
}
