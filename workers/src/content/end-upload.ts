import { storage, type CommandContext } from '@cairn/domain';
import { decideOnSnapshot, foldStream, type CommandMetadata, type GlobalPosition } from '@cairn/platform';
import { findAllocationRow, multipartRefOf, objectStillReferenced, snapshotOf, type UploadRow } from '@cairn/projections';
import type { ContentDeps } from './content-deps.ts';

/**
 * Ends an open upload (docs/storage.md "Direct uploads"): a client's abort, the expiry job,
 * or a completion refused for a size or checksum that does not match. The parts go first,
 * then the end and the release of its reservation are one append: a failure between leaves
 * an upload still open whose parts are gone, which the next try (or the expiry job) ends;
 * never a released reservation whose parts stay. `assembled`: the object was made from the
 * parts already (a refused completion), so it goes too, unless a record points at it.
 * Null when it had ended already.
 */
export async function endUpload(deps: ContentDeps, upload: UploadRow, reason: storage.UploadEndReason, context: CommandContext, metadata: CommandMetadata, options: { assembled?: boolean } = {}): Promise<GlobalPosition | null> {
  const store = await deps.stores.forRepository(upload.repository_id);
  if (store) {
    await store.multipart.abort(multipartRefOf(upload));
    if (options.assembled && !(await objectStillReferenced(deps.db, upload.repository_id, upload.key, '00000000-0000-0000-0000-000000000000'))) await store.remove(upload.key);
  }
  const outcome = await decideOnSnapshot(deps.eventStore, context, metadata, async () => {
    const { state, version } = await foldStream(deps.eventStore, storage.uploadStream(upload.id), storage.uploadDecider);
    const ended = storage.decideUpload({ type: 'AbortUpload', reason }, state, context);
    if (ended.length === 0) return [];
    const batches = [{ streamId: storage.uploadStream(upload.id), events: ended, expectedVersion: version }];
    const allocation = await findAllocationRow(deps.db, upload.allocation_id);
    if (!allocation) return batches;
    const { snapshot, version: allocationVersion } = snapshotOf(allocation);
    return [...batches, { streamId: storage.allocationStream(allocation.id), events: [storage.decideRelease(snapshot, upload.id, Number(upload.size))], expectedVersion: allocationVersion }];
  });
  return outcome.position;
}
