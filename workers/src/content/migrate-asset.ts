import { assets, operatorActor, storage, type CommandContext } from '@cairn/domain';
import { decideOnSnapshot, executeCommand, type BlobStore, type CommandMetadata } from '@cairn/platform';
import { findAllocationRow, findMigration, listContents, objectStillReferenced, payingAllocation, snapshotOf, type ContentRow } from '@cairn/projections';
import type { ContentDeps } from './content-deps.ts';
import { migrationFailureMessage } from './migration-failure.ts';

export type JobAttempt = { readonly attempt: number; readonly final: boolean };

const workerContext = (): CommandContext => ({ actor: operatorActor, now: new Date().toISOString() });

/**
 * The migrate-asset job (docs/storage.md): copy each object to the target, verify its
 * SHA-256 there, switch the record (moving its charge to the target's allocation) in one
 * append, then delete the source bytes. Every step can be repeated: a run that dies
 * anywhere leaves records that point at whole objects, and the next run finishes the rest.
 * A failure is recorded and rethrown, so the queue's attempts and back-off apply.
 */
export async function migrateAsset(deps: ContentDeps, payload: { assetId: string; migrationId: string }, jobId: string, attempt: JobAttempt): Promise<void> {
  const metadata: CommandMetadata = { requestId: null, correlationId: jobId, causationId: jobId };
  const assetId = payload.assetId as assets.AssetId;
  const step = (command: assets.AssetMigrationCommand) =>
    executeCommand(deps.eventStore, assets.assetDecider, assets.assetStream(assetId), command, workerContext(), metadata).catch((error: unknown) => {
      // The asset was deleted meanwhile: nothing is left to migrate.
      if (error instanceof Error && 'code' in error && error.code === 'not_found') return null;
      throw error;
    });
  const authority = { principals: [], inheritedFlags: 0 };
  const started = await step({ type: 'RunAssetMigration', id: assetId, authority, migrationId: payload.migrationId });
  if (!started || started.events.length === 0) return;
  try {
    const run = started.events[0];
    // A run after another that died may find records switched whose source bytes were not yet deleted.
    if (run?.type === 'AssetMigrationRunning' && run.data.attempt > 1) await sweepMovedSources(deps, assetId, payload.migrationId);
    const moved = await moveContent(deps, assetId, payload.migrationId, metadata);
    await step({ type: 'CompleteAssetMigration', id: assetId, authority, migrationId: payload.migrationId, movedContent: moved });
  } catch (error) {
    await step({ type: 'FailAssetMigration', id: assetId, authority, migrationId: payload.migrationId, error: migrationFailureMessage(error), retrying: !attempt.final });
    throw error;
  }
}

async function moveContent(deps: ContentDeps, assetId: string, migrationId: string, metadata: CommandMetadata): Promise<number> {
  const migration = await findMigration(deps.db, assetId, migrationId);
  if (!migration) throw new Error(`migration ${migrationId} is not in the read model`);
  const targetId = migration.target_repository_id;
  const target = await deps.stores.forRepository(targetId);
  if (!target) throw new Error(`repository ${targetId} does not exist`);
  const moving = (await listContents(deps.db, assetId)).filter((c) => c.repository_id !== targetId);
  const storeOf = async (repositoryId: string) => {
    const store = await deps.stores.forRepository(repositoryId);
    if (!store) throw new Error(`repository ${repositoryId} does not exist`);
    return store;
  };
  // Chunks: copies of a chunk run a few at a time, then its records switch in one append,
  // then its source bytes go. A run that dies leaves each record pointing at a whole object.
  for (let i = 0; i < moving.length; i += switchChunk) {
    const chunk = moving.slice(i, i + switchChunk);
    await inParallel(chunk, copiesAtOnce, async (content) => copyVerified(await storeOf(content.repository_id), target, content));
    await switchRecords(deps, chunk, targetId, migrationId, metadata);
    await inParallel(chunk, copiesAtOnce, async (content) => {
      if (!(await objectStillReferenced(deps.db, content.repository_id, content.key, content.id))) await (await storeOf(content.repository_id)).remove(content.key);
    });
  }
  return moving.length;
}

/** The source bytes of records this migration already switched, unless something else points at them. */
async function sweepMovedSources(deps: ContentDeps, assetId: string, migrationId: string): Promise<void> {
  const migration = await findMigration(deps.db, assetId, migrationId);
  if (!migration) return;
  const switched = (await listContents(deps.db, assetId)).filter((c) => c.repository_id === migration.target_repository_id);
  await inParallel(switched, copiesAtOnce, async (content) => {
    const stream = await deps.eventStore.readStream(storage.contentStream(content.id));
    const move = stream.events.findLast((e) => e.type === 'ContentMoved' && (e.data as storage.ContentMoved['data']).migrationId === migrationId);
    const from = (move?.data as storage.ContentMoved['data'] | undefined)?.from;
    if (!from || from.repositoryId === content.repository_id) return;
    if (await objectStillReferenced(deps.db, from.repositoryId, from.key, content.id)) return;
    await (await deps.stores.forRepository(from.repositoryId))?.remove(from.key);
  });
}

/** Objects copied at once, and records switched per append. */
const copiesAtOnce = 4;
const switchChunk = 50;

async function inParallel<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next] as T;
        next += 1;
        await work(item);
      }
    }),
  );
}

/** The object at the same key on the target, with the record's checksum; a copy already there and whole is kept. */
async function copyVerified(source: BlobStore, target: BlobStore, content: ContentRow): Promise<void> {
  const present = await target.inspect(content.key);
  if (present?.sha256 === content.sha256) return;
  const copied = await target.put(content.key, await source.open(content.key));
  const check = await target.inspect(content.key);
  if (copied.sha256 !== content.sha256 || check?.sha256 !== content.sha256) {
    await target.remove(content.key);
    throw new Error(`checksum mismatch copying ${content.key}: expected ${content.sha256}`);
  }
}

/**
 * The records move to the target, and their charges from the source allocations to the
 * owner's allocation on the target, in one append: the charges are decided together on the
 * target's snapshot, so the limit holds for the chunk as a whole.
 */
async function switchRecords(deps: ContentDeps, contents: readonly ContentRow[], targetId: string, migrationId: string, metadata: CommandMetadata): Promise<void> {
  await decideOnSnapshot(deps.eventStore, workerContext(), metadata, async () => {
    const assetId = contents[0]?.asset_id;
    if (!assetId) return [];
    const asset = await deps.db.selectFrom('assets').select(['owner_type', 'owner_id']).where('id', '=', assetId).executeTakeFirst();
    if (!asset) throw new Error('the asset is gone');
    const targetAllocation = await payingAllocation(deps.db, { ownerType: asset.owner_type, ownerId: asset.owner_id }, targetId);
    if (!targetAllocation) throw storage.contentErrors.noAllocation();
    const streams = await Promise.all(contents.map((c) => deps.eventStore.readStream(storage.contentStream(c.id))));
    const target = snapshotOf(targetAllocation);
    let used = target.snapshot.usedBytes;
    const charges = contents.map((c) => {
      const charge = storage.decideCharge({ ...target.snapshot, usedBytes: used }, c.id, Number(c.size));
      used += Number(c.size);
      return charge;
    });
    const moves = contents.map((c, i) => ({
      streamId: storage.contentStream(c.id),
      expectedVersion: streams[i]?.version ?? 0,
      events: [
        {
          type: 'ContentMoved',
          data: {
            id: c.id,
            assetId: c.asset_id,
            migrationId,
            from: { repositoryId: c.repository_id, key: c.key, allocationId: c.allocation_id },
            to: { repositoryId: targetId, key: c.key, allocationId: targetAllocation.id },
          },
        } satisfies storage.ContentMoved,
      ],
    }));
    const credits = [];
    for (const sourceId of new Set(contents.map((c) => c.allocation_id))) {
      const row = await findAllocationRow(deps.db, sourceId);
      if (!row) continue;
      const source = snapshotOf(row);
      const events = contents.filter((c) => c.allocation_id === sourceId).map((c) => storage.decideCredit(source.snapshot, c.id, Number(c.size)));
      credits.push({ streamId: storage.allocationStream(sourceId), events, expectedVersion: source.version });
    }
    return [...moves, { streamId: storage.allocationStream(targetAllocation.id), events: charges, expectedVersion: target.version }, ...credits];
  });
}
