import { sql } from 'kysely';
import type { ReadDb } from '@cairn/projections';

const readers = new WeakMap<ReadDb, () => Promise<string>>();

/** The one reader of this database in this process: every cached operation shares it. */
export function snapshotReaderOf(db: ReadDb): () => Promise<string> {
  let reader = readers.get(db);
  if (!reader) {
    reader = snapshotReader(async () => (await sql<{ s: string }>`select pg_current_snapshot()::text as s`.execute(db)).rows[0]?.s ?? '');
    readers.set(db, reader);
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
