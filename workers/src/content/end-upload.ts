import { storage, type CommandContext } from '@cairn/domain';
import { decideOnSnapshot, type CommandMetadata, type EventStore, type GlobalPosition } from '@cairn/platform';
import { findAllocationRow, multipartRefOf, objectStillReferenced, snapshotOf, type UploadRow } from '@cairn/projections';
import type { ContentDeps } from './content-deps.ts';

/** The upload as its stream shows it, and the stream's version. */
export async function foldUpload(eventStore: EventStore, uploadId: string): Promise<{ state: storage.UploadState; version: number }> {
  const stream = await eventStore.readStream(storage.uploadStream(uploadId));
  const state = stream.events.reduce((s, e) => storage.evolveUpload(s, { type: e.type, data: e.data } as storage.UploadEvent), storage.uploadDecider.initialState);
  return { state, version: stream.version };
}

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
    if (options.assembled && !(await objectStillReferenced(deps.db, upload.repository_id, upload.key, upload.id))) await store.remove(upload.key);
  }
  const outcome = await decideOnSnapshot(deps.eventStore, context, metadata, async () => {
    const { state, version } = await foldUpload(deps.eventStore, upload.id);
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
