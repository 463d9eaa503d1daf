import { storage } from '@cairn/domain';
import { completeUpload } from '@cairn/contract';
import { foldStream, implement, missingParts, MultipartGoneError, type BlobStore, type RequestContext, type StoredObject } from '@cairn/platform';
import { findAllocationRow, findContent, multipartRefOf, objectStillReferenced, presentContent, snapshotOf, uploadPlanOf, type UploadRow } from '@cairn/projections';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../../deps.ts';
import { decideOnSnapshot } from '../snapshot-command.ts';
import { openUpload } from './upload-access.ts';

/**
 * Issue 25: the parts become the object, which is measured at the repository (size, and
 * SHA-256 when declared) before anything is charged. A mismatch ends the upload: the bytes
 * are removed, the reservation released, nothing charged, and the answer is 400. A match
 * records the content (its id is the upload's) and moves the reservation into a charge, in
 * one append with the upload's end (docs/storage.md "Direct uploads").
 */
export const completeUploadRoute = (deps: CommandDeps) =>
  implement(completeUpload, async ({ params, context, req }) => {
    const { upload, store } = await openUpload(deps, params, context, req, true);
    const { state } = await foldStream(deps.eventStore, storage.uploadStream(upload.id), storage.uploadDecider);
    const declared = storage.openUpload(state);
    if (storage.isExpired(declared, context.now)) throw storage.uploadErrors.expired();

    const ref = multipartRefOf(upload);
    const plan = uploadPlanOf(upload);
    const received = (await gone(() => store.multipart.listParts(ref))).filter((p) => p.partNumber <= plan.partCount);
    const absent = missingParts(plan, received).filter((n) => !received.some((p) => p.partNumber === n));
    if (absent.length > 0) throw storage.uploadErrors.missingParts(absent);
    // Every part is there. One of another length cannot come through the URLs (fs checks it,
    // S3 URLs sign it), only from behind the service's back: the sizes are checked before
    // anything is assembled, and the object is measured again after.
    const sum = received.reduce((total, p) => total + p.size, 0);
    const early = storage.checkUploadedObject({ ...declared, sha256: null }, { size: sum, sha256: '' });
    if (early) await refuse(deps, context, upload, early, false);

    const stored = await gone(() => store.multipart.complete(ref, plan.partCount, { contentType: upload.content_type }));
    const refused = storage.checkUploadedObject(declared, stored);
    if (refused) await refuse(deps, context, upload, refused, true);
    let position;
    try {
      position = await record(deps, context, upload, stored);
    } catch (error) {
      // The upload ended meanwhile (an abort, the expiry): the object made here goes too.
      await removeUnreferenced(deps, store, upload);
      throw error;
    }
    await awaitReadModels(deps, position, ['ContentAdded', 'AllocationCharged', 'UploadCompleted']);
    const row = await findContent(deps.db, upload.asset_id, upload.id);
    if (!row) throw storage.contentErrors.contentNotFound();
    return { status: 201, body: presentContent(row), position, headers: { Location: `/api/assets/${upload.asset_id}/content/${upload.id}/` } };
  });

/** Ends the upload for a mismatch (its parts, and the object when `assembled`, removed; nothing charged), then answers 400. */
async function refuse(deps: CommandDeps, context: RequestContext, upload: UploadRow, refused: { reason: storage.UploadEndReason; error: Error }, assembled: boolean): Promise<never> {
  await deps.storage.uploads.endUpload(upload, refused.reason, commandContext(context), commandMetadata(context), { assembled });
  throw refused.error;
}

/** The upload's end, its reservation turned into a charge, and the content record: one append. */
async function record(deps: CommandDeps, context: RequestContext, upload: UploadRow, stored: StoredObject) {
  const { position } = await decideOnSnapshot(deps, context, async () => {
    const { state, version } = await foldStream(deps.eventStore, storage.uploadStream(upload.id), storage.uploadDecider);
    const completed = storage.decideUpload({ type: 'CompleteUpload', received: stored }, state, commandContext(context));
    const declared = storage.openUpload(state);
    const row = await findAllocationRow(deps.db, declared.allocationId);
    if (!row) throw storage.contentErrors.noAllocation();
    const { snapshot, version: allocationVersion } = snapshotOf(row);
    const added: storage.ContentAdded = {
      type: 'ContentAdded',
      data: {
        id: declared.id,
        assetId: declared.assetId,
        repositoryId: declared.repositoryId,
        allocationId: declared.allocationId,
        key: declared.key,
        filename: declared.filename,
        contentType: declared.contentType,
        size: stored.size,
        sha256: stored.sha256,
        origin: 'upload',
        extractionQueued: deps.storage.extractionEnabled,
      },
    };
    return [
      { streamId: storage.uploadStream(declared.id), events: completed, expectedVersion: version },
      { streamId: storage.allocationStream(row.id), events: storage.decideUploadCharge(snapshot, declared.id, declared.size, declared.id, stored.size), expectedVersion: allocationVersion },
      { streamId: storage.contentStream(declared.id), events: [added], expectedVersion: 'none' as const },
    ];
  });
  return position;
}

const noRecord = '00000000-0000-0000-0000-000000000000';

async function removeUnreferenced(deps: CommandDeps, store: BlobStore, upload: UploadRow): Promise<void> {
  // Any record, the upload's own included: a concurrent completion may have recorded it.
  if (await objectStillReferenced(deps.db, upload.repository_id, upload.key, noRecord)) return;
  await store.remove(upload.key).catch(() => undefined);
}

/** The repository no longer has the upload: it was aborted or expired meanwhile. */
async function gone<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof MultipartGoneError) throw storage.uploadErrors.ended();
    throw error;
  }
}
