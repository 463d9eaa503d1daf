import { operatorActor } from '@cairn/domain';
import { grantDefaultAllocation, type DefaultAllocationGrant, type RequestContext } from '@cairn/platform';
import { findRepositoryByName, type ReadDb } from '@cairn/projections';
import { awaitReadModels, commandMetadata, type CommandDeps } from '../deps.ts';

/** What a new user is granted now; null when nothing (turned off, or no such repository). */
export type NewUserAllocation = () => Promise<DefaultAllocationGrant | null>;

/**
 * Resolves the configured repository by name at each grant, not at start: the embedded
 * start makes `local` after the configuration is read, and an operator may create the
 * named repository later (docs/storage.md).
 */
export function newUserAllocation(db: ReadDb, setting: { readonly limitBytes: number; readonly repositoryName: string }): NewUserAllocation {
  return async () => {
    if (setting.limitBytes === 0) return null;
    const repository = await findRepositoryByName(db, setting.repositoryName);
    return repository ? { repositoryId: repository.id, limitBytes: setting.limitBytes } : null;
  };
}

/**
 * A user registered before default allocations (or before the named repository existed)
 * receives theirs at the first upload that finds nothing to pay with on that repository.
 * True when a grant was made now; one made before (even one since deleted) is never made
 * again, so an administrator's deletion stands.
 */
export async function grantOnFirstUpload(deps: CommandDeps, context: RequestContext, owner: { readonly ownerType: string; readonly ownerId: string }, repositoryId: string | null): Promise<boolean> {
  if (owner.ownerType !== 'user' || !deps.storage.newUserAllocation) return false;
  const grant = await deps.storage.newUserAllocation();
  if (!grant || (repositoryId !== null && repositoryId !== grant.repositoryId)) return false;
  // The configuration grants it, not the uploader (who may not even be the owner): the
  // service's own actor, with the request as its cause for the audit trail. Without the
  // request's Idempotency-Key: the grant is not the upload's own write (a retry must not
  // take it for the upload's committed events), and it is idempotent by itself.
  const metadata = { ...commandMetadata(context), idempotencyKey: undefined };
  const position = await grantDefaultAllocation(deps.eventStore, owner.ownerId, grant, { actor: operatorActor, now: context.now }, metadata);
  if (!position) return false;
  await awaitReadModels(deps, position, ['AllocationCreated']);
  return true;
}
