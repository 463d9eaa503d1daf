import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';

/** The two pools of one database server a query process reads from: plain reads, and the costly ones with their statement bound. */
export type ReadPools = { readonly plain: pg.Pool; readonly costly: pg.Pool };

/**
 * The server the current request reads its read models from (docs/consistency.md,
 * "Standbys"). The router chooses it once per request and every read of that request,
 * however deep, follows it: the read models' database objects ask `routedPool` for each
 * connection instead of holding one pool. Outside such a request (writes, sign-in state,
 * jobs) it is unset and every read goes to the primary.
 */
const current = new AsyncLocalStorage<ReadPools>();

export function readingOn<T>(pools: ReadPools, work: () => Promise<T>): Promise<T> {
  return current.run(pools, work);
}

export function routedPool(kind: keyof ReadPools, primary: pg.Pool): pg.Pool {
  return current.getStore()?.[kind] ?? primary;
}

/** Runs `work` on the primary whatever the current request reads from: for what a read must write (a server secret made on first use). */
export function onPrimary<T>(work: () => Promise<T>): Promise<T> {
  return current.exit(work);
}
