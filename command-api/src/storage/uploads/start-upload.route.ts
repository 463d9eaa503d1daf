import { storage } from '@cairn/domain';
import { startUpload } from '@cairn/contract';
import { foldStream, implement, newId, uploadProgress } from '@cairn/platform';
import { countOpenUploads, findAllocationRow, findUpload, presentUpload, snapshotOf, uploadPlanOf } from '@cairn/projections';
import { awaitReadModels, commandContext, type CommandDeps } from '../../deps.ts';
import { openContentAsset } from '../content-access.ts';
import { payerOf } from '../record-content.ts';
import { decideOnSnapshot } from '../snapshot-command.ts';
import { fieldChecked } from './upload-fields.ts';

/**
 * Issue 25 (docs/storage.md "Direct uploads"): WRITE_CONTENT, the asset's lock (423) and a
 * migration under way (409) as every content write; the declared size is reserved on the
 * allocation that would pay for an upload through the service, in the same append as the
 * upload, so concurrent starts can never together promise more than the limit; and at most
 * CAIRN_UPLOAD_MAX_OPEN uploads are open on one allocation at once (409 `too_many_open_uploads`).
 */
export const startUploadRoute = (deps: CommandDeps) =>
  implement(startUpload, async ({ params, body, context, req }) => {
    const { open } = await openContentAsset(deps, params['id'] ?? '', context, req, 'WRITE_CONTENT', true);
    const assetId = open.asset.id;
    const filename = fieldChecked(() => storage.checkFilename(body.filename));
    const contentType = fieldChecked(() => storage.checkContentType(body.content_type ?? 'application/octet-stream'));
    const sha256 = body.sha256 === undefined ? null : fieldChecked(() => storage.checkSha256(body.sha256 ?? ''));
    const plan = fieldChecked(() => storage.planUpload(body.size, body.part_size ?? null));
    const { allocation, store } = await payerOf(deps, context, assetId, { ownerType: open.asset.ownerType, ownerId: open.asset.ownerId }, body.repository_id?.toLowerCase() ?? null);
    // Refused before anything is made at the repository; decided again on a fresh row below.
    storage.decideReservation(snapshotOf(allocation).snapshot, 'check', plan.size);
    const { maxOpenUploads } = deps.storage.uploads;
    if ((await countOpenUploads(deps.db, allocation.id)) >= maxOpenUploads) throw storage.uploadErrors.tooManyOpen(maxOpenUploads);

    const uploadId = newId(context);
    const key = storage.uploadKeyOf(assetId, uploadId);
    const expiresAt = new Date(Date.parse(context.now) + deps.storage.uploads.expirySeconds * 1000).toISOString();
    const storageUploadId = await store.multipart.create(key, uploadId, { contentType });
    const ref = { key, uploadId, storageUploadId };
    let position;
    try {
      ({ position } = await decideOnSnapshot(deps, context, async () => {
        const row = await findAllocationRow(deps.db, allocation.id);
        const { snapshot, version } = snapshotOf(row ?? allocation);
        const reserved = storage.decideReservation(row ? snapshot : null, uploadId, plan.size);
        // Counted at the allocation's version this append expects: every start reserves on that
        // stream, so concurrent starts cannot together open more than the cap.
        if ((await countOpenUploads(deps.db, allocation.id)) >= maxOpenUploads) throw storage.uploadErrors.tooManyOpen(maxOpenUploads);
        const started: storage.StartUpload = {
          type: 'StartUpload',
          id: uploadId,
          assetId,
          repositoryId: allocation.repository_id,
          allocationId: allocation.id,
          key,
          filename,
          contentType,
          size: plan.size,
          sha256,
          partSize: plan.partSize,
          partCount: plan.partCount,
          storageUploadId,
          expiresAt,
        };
        return [
          { streamId: storage.allocationStream(allocation.id), events: [reserved], expectedVersion: version },
          { streamId: storage.uploadStream(uploadId), events: storage.decideUpload(started, storage.uploadDecider.initialState, commandContext(context)), expectedVersion: 'none' },
        ];
      }));
    } catch (error) {
      // Only an upload that was not recorded: an append can fail after it committed (the
      // answer lost), and a recorded open upload must keep its parts (its end removes them).
      if (!(await recorded(deps, uploadId))) await store.multipart.abort(ref).catch(() => undefined);
      throw error;
    }
    await awaitReadModels(deps, position ?? null, ['UploadStarted', 'AllocationReserved']);
    const row = await findUpload(deps.db, assetId, uploadId);
    if (!row) throw storage.uploadErrors.notFound();
    const { publicUrl, linkKey, partUrlTtlSeconds } = deps.storage.uploads;
    const progress = await uploadProgress(store, ref, uploadPlanOf(row), { assetId, publicUrl, linkKey, uploadExpiresAt: row.expires_at, partUrlTtlSeconds, now: new Date(), received: [] });
    return { status: 201, body: presentUpload(row, progress), position: position ?? null, headers: { Location: `/api/assets/${assetId}/content/uploads/${uploadId}/` } };
  });

/** Whether the upload's stream holds its start; unknown (the log unreachable) counts as recorded, so nothing recorded is removed. */
async function recorded(deps: CommandDeps, uploadId: string): Promise<boolean> {
  try {
    const { state } = await foldStream(deps.eventStore, storage.uploadStream(uploadId), storage.uploadDecider);
    return state.status !== 'none';
  } catch {
    return true;
  }
}
