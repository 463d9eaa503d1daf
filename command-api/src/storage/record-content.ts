import { storage } from '@cairn/domain';
import { httpErrors, type BlobStore, type GlobalPosition, type RequestContext } from '@cairn/platform';
import { findAllocationRow, findRepository, payingAllocation, preferredRepositoryOf, snapshotOf, type AllocationRow } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { grantOnFirstUpload } from './default-allocation.ts';
import { decideOnSnapshot } from './snapshot-command.ts';

const unknownRepository = () => httpErrors.unknownReference('repository_id', 'The repository was not found.');

export type Owner = { readonly ownerType: string; readonly ownerId: string };

/**
 * The allocation that pays (docs/storage.md), and its repository's store; 409 `no_allocation`
 * without one. No repository named: the one the asset's collections prefer, when the owner
 * has an allocation there; else the owner's default. A named repository that does not exist
 * is 404 naming `repository_id` (DECISIONS.md 1), not the owner's missing allocation. A user
 * owner with none at all may be granted the configured default allocation now (docs/storage.md).
 */
export async function payerOf(deps: CommandDeps, context: RequestContext, assetId: string, owner: Owner, repositoryId: string | null): Promise<{ allocation: AllocationRow; store: BlobStore }> {
  if (repositoryId !== null && !(await findRepository(deps.db, repositoryId))) throw unknownRepository();
  const preferred = repositoryId === null ? await preferredRepositoryOf(deps.db, assetId) : null;
  const find = async () => (preferred ? await payingAllocation(deps.db, owner, preferred) : undefined) ?? (await payingAllocation(deps.db, owner, repositoryId));
  const allocation = (await find()) ?? ((await grantOnFirstUpload(deps, context, owner, repositoryId)) ? await find() : undefined);
  if (!allocation) throw storage.contentErrors.noAllocation();
  const store = await deps.storage.stores.forRepository(allocation.repository_id);
  if (!store) throw unknownRepository();
  return { allocation, store };
}

/**
 * Records the content and charges its allocation in one append (docs/storage.md): the
 * charge is decided on the allocation's row and appended with its version expected, so
 * concurrent uploads can never together go past the limit.
 */
export async function recordContent(deps: CommandDeps, context: RequestContext, added: storage.ContentAdded['data']): Promise<GlobalPosition | null> {
  const outcome = await decideOnSnapshot(deps, context, async () => {
    const row = await findAllocationRow(deps.db, added.allocationId);
    if (!row) throw storage.contentErrors.noAllocation();
    const { snapshot, version } = snapshotOf(row);
    const charge = storage.decideCharge(snapshot, added.id, added.size);
    return [
      { streamId: storage.allocationStream(added.allocationId), events: [charge], expectedVersion: version },
      { streamId: storage.contentStream(added.id), events: [{ type: 'ContentAdded', data: added }], expectedVersion: 'none' },
    ];
  });
  return outcome.position;
}
