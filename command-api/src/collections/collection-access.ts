import { collections, DomainError, permissionBits } from '@cairn/domain';
import { httpErrors, userRootCollectionId, type Caller, type RequestContext } from '@cairn/platform';
import { collectionStanding, enforceProjectRestriction, presentCollection, type CollectionView } from '@cairn/projections';
import type { Request } from 'express';
import type { CommandDeps } from '../deps.ts';
import { executeStep } from '../run-command.ts';

export function callerOf(context: RequestContext): Caller {
  if (!context.caller) throw httpErrors.unauthenticated();
  return context.caller;
}

/**
 * A collection the caller may see (404 otherwise, like a missing one: DECISIONS.md 1),
 * after the geographic restriction of the project that owns it, with the caller's principals.
 */
export async function openCollectionFor(deps: CommandDeps, id: string, caller: Caller, req: Request): Promise<{ principals: string[]; collection: CollectionView }> {
  const { principals, collection } = await collectionStanding(deps.db, id, caller);
  if (!collection || (!caller.isSystemAdmin && (collection.effective_flags & permissionBits.READ_METADATA) === 0)) throw httpErrors.notFound('Collection not found.');
  if (collection.owner_project_id) await enforceProjectRestriction(deps, collection.owner_project_id, caller, req);
  return { principals, collection };
}

/** The user's root collection: made at registration, or here on first need for users registered before roots existed. */
export async function ensureUserRoot(deps: CommandDeps, context: RequestContext, userId: string): Promise<collections.CollectionId> {
  const id = userRootCollectionId(userId) as collections.CollectionId;
  const { collection } = await collectionStanding(deps.db, id, { userId, isSystemAdmin: true });
  if (collection) return id;
  try {
    await executeStep(deps, context, {
      decider: collections.collectionDecider,
      stream: collections.collectionStream(id),
      newStream: true,
      command: { type: 'CreateUserRootCollection', id, userId, title: 'Home' },
    });
  } catch (error) {
    // Made meanwhile by a concurrent request: as good.
    if (!(error instanceof DomainError && (error.code === 'already_exists' || error.code === 'concurrent_modification'))) throw error;
  }
  return id;
}

/** The collection read back after a write, as the caller sees it. */
export function readBackCollection(deps: CommandDeps, id: string, caller: Caller) {
  return {
    read: async () => (await collectionStanding(deps.db, id, caller)).collection ?? undefined,
    present: presentCollection,
    notFound: 'Collection not found.',
  };
}

/** `If-Match: "token"` (quotes and W/ allowed, as for ETags); absent: no precondition. */
export function ifMatchOf(req: Request): string | undefined {
  const header = req.headers['if-match'];
  if (typeof header !== 'string' || header.trim() === '' || header.trim() === '*') return undefined;
  return header.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
}
