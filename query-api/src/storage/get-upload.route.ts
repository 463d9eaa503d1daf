import { storage } from '@cairn/domain';
import { getUpload } from '@cairn/contract';
import { implement, uploadProgress } from '@cairn/platform';
import { findUpload, multipartRefOf, noProgress, presentUpload, uploadPlanOf } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';
import { openForRead } from './content-gate.ts';

/**
 * How an interrupted upload resumes (docs/storage.md "Direct uploads"): the parts the
 * repository holds, those missing, and fresh URLs for them. WRITE_CONTENT, since the URLs
 * let their holder write: a reader of the asset does not get them (403).
 */
export const getUploadRoute = (deps: QueryDeps) =>
  implement(getUpload, async ({ params, context, req }) => {
    const { asset } = await openForRead(deps, params['id'] ?? '', context.caller, req, 'WRITE_CONTENT');
    const upload = await findUpload(deps.db, asset.id, params['upload_id'] ?? '');
    const store = upload ? await deps.storage.stores.forRepository(upload.repository_id) : null;
    if (!upload || !store) throw storage.uploadErrors.notFound();
    const now = new Date();
    const progress =
      upload.status === 'open' && now < upload.expires_at
        ? await uploadProgress(store, multipartRefOf(upload), uploadPlanOf(upload), {
            assetId: asset.id,
            publicUrl: deps.publicUrl,
            linkKey: deps.storage.uploadLinkKey,
            uploadExpiresAt: upload.expires_at,
            partUrlTtlSeconds: deps.storage.partUrlTtlSeconds,
            now,
          })
        : noProgress;
    return { status: 200, body: presentUpload(upload, progress), headers: { 'Cache-Control': 'private, no-store' } };
  });
