import { poolOf, type ReadDb } from '@cairn/projections';
import type pg from 'pg';

export type ServerSnapshots = { readonly server: string; readonly read: () => Promise<string> };

const readers = new WeakMap<pg.Pool, ServerSnapshots>();
let servers = 0;

/**
 * The one reader of the server the current request reads from (the primary, or the standby
 * chosen for it: docs/consistency.md, "Standbys"); every cached operation shares it. The
 * cache keeps answers by `server`, so an answer kept under one server's snapshot is never
 * taken for another's, even were their texts equal.
 */
export function snapshotReaderOf(db: ReadDb): ServerSnapshots {
  const pool = poolOf(db);
  if (!pool) throw new Error('the read cache needs a database made by createReadDb');
  let reader = readers.get(pool);
  if (!reader) {
    reader = { server: String((servers += 1)), read: snapshotReader(async () => (await pool.query<{ s: string }>('select pg_current_snapshot()::text as s')).rows[0]?.s ?? '') };
    readers.set(pool, reader);
  }
  return reader;
}

/**
 * The database's current snapshot (`pg_current_snapshot()`), read for many callers at once.
 * A caller may only use a reading that started after it asked: one that started earlier
 * could miss a commit the caller already knows of (its own write, answered a moment ago).
 * So at most one reading runs; callers that ask while it runs share the next one, which
 * starts as soon as it ends. Sixteen concurrent hits of the cache then cost one or two
 * round trips instead of sixteen, and no caller waits for more than two.
 */
export function snapshotReader(readSnapshot: () => Promise<string>): () => Promise<string> {
  let running: Promise<string> | null = null;
  let queued: Promise<string> | null = null;
  const start = (): Promise<string> => {
    const reading = readSnapshot().finally(() => {
      if (running === reading) running = null;
    });
    running = reading;
    return reading;
  };
  return () => {
    if (!running) return start();
    queued ??= running
      .catch(() => undefined)
      .then(() => {
        queued = null;
        return start();
      });
    return queued;
  };
}
