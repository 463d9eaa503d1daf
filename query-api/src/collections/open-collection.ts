import { permissionBits } from '@cairn/domain';
import { httpErrors, type Caller, type ClientRequest } from '@cairn/platform';
import { collectionStanding, enforceProjectRestriction, type CollectionView, type ReadDb, type ViewerFacts } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

/**
 * A collection the caller may see (404 otherwise), after its owner project's geographic
 * restriction; with the caller's principals and readable collections, read once.
 */
export async function openCollection(deps: QueryDeps & { db: ReadDb }, id: string, caller: Caller | null, req: ClientRequest): Promise<{ caller: Caller; collection: CollectionView; facts: ViewerFacts }> {
  if (!caller) throw httpErrors.unauthenticated();
  // The standing statement works out the caller's principals too: no statement of its own for them.
  const { principals, collection } = await collectionStanding(deps.db, id, caller);
  const facts: ViewerFacts = { p: principals };
  if (!collection || (!caller.isSystemAdmin && (collection.effective_flags & permissionBits.READ_METADATA) === 0)) throw httpErrors.notFound('Collection not found.');
  if (collection.owner_project_id) await enforceProjectRestriction(deps, collection.owner_project_id, caller, req);
  return { caller, collection, facts };
}
