import type { ReadDb } from '../schema.ts';

export type ContentRow = {
  id: string;
  asset_id: string;
  repository_id: string;
  allocation_id: string;
  key: string;
  filename: string;
  size: string;
  sha256: string;
  content_type: string;
  origin: string;
  metadata: unknown;
  metadata_status: string;
  metadata_error: string | null;
  metadata_extracted_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

export async function listContents(db: ReadDb, assetId: string): Promise<ContentRow[]> {
  return db.selectFrom('asset_contents').selectAll().where('asset_id', '=', assetId).orderBy('created_at').orderBy('id').execute() as Promise<ContentRow[]>;
}

export async function findContent(db: ReadDb, assetId: string, contentId: string): Promise<ContentRow | undefined> {
  return db.selectFrom('asset_contents').selectAll().where('id', '=', contentId).where('asset_id', '=', assetId).executeTakeFirst() as Promise<ContentRow | undefined>;
}

/** Other records pointing at the same object: its bytes stay while there are any. */
export async function objectStillReferenced(db: ReadDb, repositoryId: string, key: string, exceptContentId: string): Promise<boolean> {
  const row = await db
    .selectFrom('asset_contents')
    .select('id')
    .where('repository_id', '=', repositoryId)
    .where('key', '=', key)
    .where('id', '!=', exceptContentId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** AssetContent (interface 4.3, docs/storage.md). */
export function presentContent(row: ContentRow) {
  return {
    id: row.id,
    asset_id: row.asset_id,
    repository_id: row.repository_id,
    allocation_id: row.allocation_id,
    key: row.key,
    filename: row.filename,
    size: Number(row.size),
    sha256: row.sha256,
    content_type: row.content_type,
    origin: row.origin,
    metadata: row.metadata ?? null,
    metadata_status: row.metadata_status,
    metadata_error: row.metadata_error,
    metadata_extracted_at: row.metadata_extracted_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export async function findContentById(db: ReadDb, contentId: string): Promise<ContentRow | undefined> {
  return db.selectFrom('asset_contents').selectAll().where('id', '=', contentId).executeTakeFirst() as Promise<ContentRow | undefined>;
}
