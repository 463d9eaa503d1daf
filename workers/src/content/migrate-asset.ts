import { assets, operatorActor, storage, type CommandContext } from '@cairn/domain';
import { decideOnSnapshot, executeCommand, type BlobStore, type CommandMetadata } from '@cairn/platform';
import { findAllocationRow, findMigration, listContents, objectStillReferenced, payingAllocation, snapshotOf, type ContentRow } from '@cairn/projections';
import type { ContentDeps } from './content-deps.ts';

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
    const moved = await moveContent(deps, assetId, payload.migrationId, metadata);
    await step({ type: 'CompleteAssetMigration', id: assetId, authority, migrationId: payload.migrationId, movedContent: moved });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await step({ type: 'FailAssetMigration', id: assetId, authority, migrationId: payload.migrationId, error: message, retrying: !attempt.final });
    throw error;
  }
}

async function moveContent(deps: ContentDeps, assetId: string, migrationId: string, metadata: CommandMetadata): Promise<number> {
  const migration = await findMigration(deps.db, assetId, migrationId);
  if (!migration) throw new Error(`migration ${migrationId} is not in the read model`);
  const targetId = migration.target_repository_id;
  const target = await deps.stores.forRepository(targetId);
  if (!target) throw new Error(`repository ${targetId} does not exist`);
  let moved = 0;
  for (const content of await listContents(deps.db, assetId)) {
    if (content.repository_id === targetId) continue;
    const source = await deps.stores.forRepository(content.repository_id);
    if (!source) throw new Error(`repository ${content.repository_id} does not exist`);
    await copyVerified(source, target, content);
    await switchRecord(deps, content, targetId, migrationId, metadata);
    if (!(await objectStillReferenced(deps.db, content.repository_id, content.key, content.id))) await source.remove(content.key);
    moved += 1;
  }
  return moved;
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

/** The record moves to the target, and its charge from the source's allocation to the target's, in one append. */
async function switchRecord(deps: ContentDeps, content: ContentRow, targetId: string, migrationId: string, metadata: CommandMetadata): Promise<void> {
  const size = Number(content.size);
  await decideOnSnapshot(deps.eventStore, workerContext(), metadata, async () => {
    const asset = await deps.db.selectFrom('assets').select(['owner_type', 'owner_id']).where('id', '=', content.asset_id).executeTakeFirst();
    if (!asset) throw new Error('the asset is gone');
    const targetAllocation = await payingAllocation(deps.db, { ownerType: asset.owner_type, ownerId: asset.owner_id }, targetId);
    if (!targetAllocation) throw storage.contentErrors.noAllocation();
    const stream = await deps.eventStore.readStream(storage.contentStream(content.id));
    const from = { repositoryId: content.repository_id, key: content.key, allocationId: content.allocation_id };
    const to = { repositoryId: targetId, key: content.key, allocationId: targetAllocation.id };
    const moved: storage.ContentMoved = { type: 'ContentMoved', data: { id: content.id, assetId: content.asset_id, migrationId, from, to } };
    const targetSnapshot = snapshotOf(targetAllocation);
    const batches = [
      { streamId: storage.contentStream(content.id), events: [moved], expectedVersion: stream.version },
      { streamId: storage.allocationStream(targetAllocation.id), events: [storage.decideCharge(targetSnapshot.snapshot, content.id, size)], expectedVersion: targetSnapshot.version },
    ];
    const sourceAllocation = await findAllocationRow(deps.db, content.allocation_id);
    if (!sourceAllocation) return batches;
    const sourceSnapshot = snapshotOf(sourceAllocation);
    return [...batches, { streamId: storage.allocationStream(sourceAllocation.id), events: [storage.decideCredit(sourceSnapshot.snapshot, content.id, size)], expectedVersion: sourceSnapshot.version }];
  });
}
