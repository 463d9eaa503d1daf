import type { RepositoryLocation } from '@cairn/platform';
import type { ReadDb } from '../schema.ts';

export type RepositoryRow = { id: string; name: string; kind: string; config: unknown; created_at: Date };

export async function listRepositories(db: ReadDb): Promise<RepositoryRow[]> {
  return db.selectFrom('repositories').selectAll().orderBy('name').execute();
}

export async function findRepository(db: ReadDb, id: string): Promise<RepositoryRow | undefined> {
  return db.selectFrom('repositories').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findRepositoryByName(db: ReadDb, name: string): Promise<RepositoryRow | undefined> {
  return db.selectFrom('repositories').selectAll().where('name', '=', name).executeTakeFirst();
}

export function locationOf(row: RepositoryRow): RepositoryLocation {
  return row.config as RepositoryLocation;
}

/**
 * What clients see of a repository: its name and kind, and for s3 where it is. A directory
 * path on the server is the operators' business, not the clients'.
 */
export function presentRepository(row: RepositoryRow) {
  const location = locationOf(row);
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    ...(location.kind === 's3' ? { endpoint: location.endpoint, bucket: location.bucket, prefix: location.prefix, region: location.region } : {}),
    created_at: row.created_at.toISOString(),
  };
}
