import { storage, type PermissionName } from '@cairn/domain';
import type { BlobStore, RequestContext } from '@cairn/platform';
import { findUpload, type UploadRow } from '@cairn/projections';
import type { Request } from 'express';
import type { CommandDeps } from '../../deps.ts';
import { openContentAsset } from '../content-access.ts';

/**
 * The asset's upload a route works on: the asset first (404 hidden, 403 without
 * WRITE_CONTENT, and for `write` the lock and a migration), then the upload (404 when the
 * asset has none with this id: an upload of another asset is not found here).
 */
export async function openUpload(deps: CommandDeps, params: Readonly<Record<string, string>>, context: RequestContext, req: Request, write: boolean): Promise<{ upload: UploadRow; store: BlobStore }> {
  const need: PermissionName = 'WRITE_CONTENT';
  const { open } = await openContentAsset(deps, params['id'] ?? '', context, req, need, write);
  const upload = await findUpload(deps.db, open.asset.id, params['upload_id'] ?? '');
  if (!upload) throw storage.uploadErrors.notFound();
  const store = await deps.storage.stores.forRepository(upload.repository_id);
  if (!store) throw storage.uploadErrors.notFound();
  return { upload, store };
}
