import type { ReadDb } from '../schema.ts';

export type UploadRow = {
  id: string;
  asset_id: string;
  repository_id: string;
  allocation_id: string;
  key: string;
  filename: string;
  content_type: string;
  size: string;
  sha256: string | null;
  part_size: string;
  part_count: number;
  storage_upload_id: string | null;
  status: string;
  end_reason: string | null;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
};

/** One upload of the asset; undefined when the asset has none with this id. */
export async function findUpload(db: ReadDb, assetId: string, uploadId: string): Promise<UploadRow | undefined> {
  return db.selectFrom('content_uploads').selectAll().where('id', '=', uploadId).where('asset_id', '=', assetId).executeTakeFirst() as Promise<UploadRow | undefined>;
}

/** The asset's uploads still open (a deleted asset's are aborted with its content). */
export async function listOpenUploads(db: ReadDb, assetId: string): Promise<UploadRow[]> {
  return db.selectFrom('content_uploads').selectAll().where('asset_id', '=', assetId).where('status', '=', 'open').orderBy('created_at').orderBy('id').execute() as Promise<UploadRow[]>;
}

/** How many uploads the allocation pays for are still open (read in the append that reserves, so starts on one allocation count each other). */
export async function countOpenUploads(db: ReadDb, allocationId: string): Promise<number> {
  const row = await db.selectFrom('content_uploads').select((eb) => eb.fn.countAll<string>().as('n')).where('allocation_id', '=', allocationId).where('status', '=', 'open').executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The upload's plan, as the domain's part arithmetic takes it. */
export function uploadPlanOf(row: UploadRow): { size: number; partSize: number; partCount: number } {
  return { size: Number(row.size), partSize: Number(row.part_size), partCount: row.part_count };
}

/** The repository's view of an open upload, and the URLs for what is missing. */
export type UploadProgress = {
  readonly received: readonly { readonly partNumber: number; readonly size: number }[];
  readonly missing: readonly number[];
  readonly urls: readonly { readonly part_number: number; readonly size: number; readonly url: string }[];
  readonly urlsExpireAt: Date | null;
};

export const noProgress: UploadProgress = { received: [], missing: [], urls: [], urlsExpireAt: null };

/** AssetContentUpload (docs/storage.md "Direct uploads"). */
export function presentUpload(row: UploadRow, progress: UploadProgress) {
  return {
    id: row.id,
    asset_id: row.asset_id,
    repository_id: row.repository_id,
    allocation_id: row.allocation_id,
    key: row.key,
    filename: row.filename,
    content_type: row.content_type,
    size: Number(row.size),
    sha256: row.sha256,
    part_size: Number(row.part_size),
    part_count: row.part_count,
    status: row.status,
    end_reason: row.end_reason,
    expires_at: row.expires_at.toISOString(),
    received_parts: progress.received.map((p) => ({ part_number: p.partNumber, size: p.size })),
    missing_parts: progress.missing,
    part_urls: progress.urls,
    urls_expire_at: progress.urlsExpireAt?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The repository's reference of the upload's parts. */
export const multipartRefOf = (row: UploadRow) => ({ key: row.key, uploadId: row.id, storageUploadId: row.storage_upload_id });
