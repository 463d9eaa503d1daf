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

/** The upload's plan, as the domain's part arithmetic takes it. */
export function uploadPlanOf(row: UploadRow): { size: number; partSize: number; partCount: number } {
  return { size: Number(row.size), partSize: Number(row.part_size), partCount: row.part_count };
}
