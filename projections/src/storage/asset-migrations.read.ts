import type { ReadDb } from '../schema.ts';

export type MigrationRow = {
  id: string;
  asset_id: string;
  source_repository_id: string | null;
  target_repository_id: string;
  status: string;
  attempts: number;
  error: string | null;
  moved_content: number | null;
  created_at: Date;
  updated_at: Date;
};

export async function listMigrations(db: ReadDb, assetId: string): Promise<MigrationRow[]> {
  return db.selectFrom('asset_migrations').selectAll().where('asset_id', '=', assetId).orderBy('created_at').orderBy('id').execute();
}

export async function findMigration(db: ReadDb, assetId: string, migrationId: string): Promise<MigrationRow | undefined> {
  return db.selectFrom('asset_migrations').selectAll().where('id', '=', migrationId).where('asset_id', '=', assetId).executeTakeFirst();
}

/** A migration pending or running: content writes wait for it to end (docs/storage.md). */
export async function migrationUnderWay(db: ReadDb, assetId: string): Promise<boolean> {
  const row = await db.selectFrom('asset_migrations').select('id').where('asset_id', '=', assetId).where('status', 'in', ['pending', 'running']).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** AssetBucketMigration (DECISIONS.md 4). */
export function presentMigration(row: MigrationRow) {
  return {
    id: row.id,
    asset_id: row.asset_id,
    source_repository_id: row.source_repository_id,
    target_repository_id: row.target_repository_id,
    status: row.status,
    attempts: row.attempts,
    error: row.error,
    moved_content: row.moved_content,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
