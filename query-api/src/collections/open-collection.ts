import { permissionBits } from '@cairn/domain';
import { httpErrors, type Caller, type ClientRequest } from '@cairn/platform';
import { collectionStanding, enforceProjectRestriction, type CollectionView, type ReadDb } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

/** A collection the caller may see (404 otherwise), after its owner project's geographic restriction. */
export async function openCollection(deps: QueryDeps & { db: ReadDb }, id: string, caller: Caller | null, req: ClientRequest): Promise<{ caller: Caller; collection: CollectionView }> {
  if (!caller) throw httpErrors.unauthenticated();
  const { collection } = await collectionStanding(deps.db, id, caller);
  if (!collection || (!caller.isSystemAdmin && (collection.effective_flags & permissionBits.READ_METADATA) === 0)) throw httpErrors.notFound('Collection not found.');
  if (collection.owner_project_id) await enforceProjectRestriction(deps, collection.owner_project_id, caller, req);
  return { caller, collection };
}
