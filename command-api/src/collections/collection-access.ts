import { collections, DomainError, permissionBits } from '@cairn/domain';
import { httpErrors, userRootCollectionId, type Caller, type RequestContext } from '@cairn/platform';
import { collectionStanding, enforceProjectRestriction, findRepository, presentCollection, type CollectionView } from '@cairn/projections';
import type { Request } from 'express';
import { sql } from 'kysely';
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

/** The tree's writes of this process waiting for the tree's lock, one after another (per pool). */
const treeWritesInLine = new WeakMap<object, Promise<void>>();

/**
 * What changes the tree (a create, a move, a deletion) is decided under one lock for the
 * whole forest (pg_advisory_lock, across processes), against the tree as the read model
 * shows it, and released once the read models show the change: each sees every earlier
 * one, so two concurrent moves can never make a cycle, and nothing lands under a
 * collection that a concurrent deletion removes (docs/collections.md).
 * The lock holds a pooled connection while the write needs others: the writes of one
 * process queue here first, so at most one of its connections waits for the lock, and a
 * pool's worth of concurrent writes cannot take every connection and starve the holder.
 */
export async function underTreeLock<T>(deps: CommandDeps, work: () => Promise<T>): Promise<T> {
  const before = treeWritesInLine.get(deps.db) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  treeWritesInLine.set(deps.db, before.then(() => mine));
  await before;
  try {
    return await deps.db.connection().execute(async (connection) => {
      await sql`select pg_advisory_lock(hashtext('cairn:collection-tree'))`.execute(connection);
      try {
        return await work();
      } finally {
        await sql`select pg_advisory_unlock(hashtext('cairn:collection-tree'))`.execute(connection);
      }
    });
  } finally {
    done();
  }
}

/** A collection's preferred repository must be one that exists (docs/collections.md; 404 like every unknown id in a body); null clears it. */
export async function checkPreferredRepository(deps: CommandDeps, id: string | null | undefined): Promise<void> {
  if (!id) return;
  if (!(await findRepository(deps.db, id.toLowerCase()))) throw httpErrors.unknownReference('preferred_repository_id', 'The repository was not found.');
}
