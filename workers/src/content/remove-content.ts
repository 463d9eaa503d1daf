import { storage, type CommandContext } from '@cairn/domain';
import { decideOnSnapshot, type CommandMetadata, type GlobalPosition } from '@cairn/platform';
import { findAllocationRow, objectStillReferenced, snapshotOf, type ContentRow } from '@cairn/projections';
import type { ContentDeps } from './content-deps.ts';

/**
 * Removes a content record and credits its allocation in one append; then its bytes,
 * unless another record still points at them (docs/storage.md). Null when it was gone.
 */
export async function removeContent(deps: ContentDeps, content: ContentRow, context: CommandContext, metadata: CommandMetadata): Promise<GlobalPosition | null> {
  const size = Number(content.size);
  const outcome = await decideOnSnapshot(deps.eventStore, context, metadata, async () => {
    const stream = await deps.eventStore.readStream(storage.contentStream(content.id));
    if (stream.events.some((e) => e.type === 'ContentRemoved')) return [];
    const removed: storage.ContentRemoved = {
      type: 'ContentRemoved',
      data: { id: content.id, assetId: content.asset_id, repositoryId: content.repository_id, key: content.key, allocationId: content.allocation_id, size },
    };
    const batches = [{ streamId: storage.contentStream(content.id), events: [removed], expectedVersion: stream.version }];
    const allocation = await findAllocationRow(deps.db, content.allocation_id);
    if (!allocation) return batches;
    const { snapshot, version } = snapshotOf(allocation);
    return [...batches, { streamId: storage.allocationStream(allocation.id), events: [storage.decideCredit(snapshot, content.id, size)], expectedVersion: version }];
  });
  if (outcome.position && !(await objectStillReferenced(deps.db, content.repository_id, content.key, content.id))) {
    const store = await deps.stores.forRepository(content.repository_id);
    await store?.remove(content.key);
  }
  return outcome.position;
}
