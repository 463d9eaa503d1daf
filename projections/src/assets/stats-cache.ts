import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';

const refreshMs = 30_000;
/** Without statistics yet (a table never analyzed), look again sooner. */
const retryMs = 2_000;

type Cached<T> = { value: T | null; at: number; refreshing: Promise<void> | null };

/**
 * What `read` makes of PostgreSQL's statistics, per database, read once and then again in
 * the background when older than 30 s: statistics change slowly, and a stale reading only
 * guides a plan, never changes an answer.
 */
export function statsCache<T>(read: (db: ReadDb) => Promise<T | null>): (db: ReadDb) => Promise<T | null> {
  const cache = new WeakMap<ReadDb, Cached<T>>();
  return async (db) => {
    let cached = cache.get(db);
    if (!cached) {
      cached = { value: await read(db).catch(() => null), at: Date.now(), refreshing: null };
      cache.set(db, cached);
      return cached.value;
    }
    if (Date.now() - cached.at > (cached.value ? refreshMs : retryMs) && !cached.refreshing) {
      const entry = cached;
      entry.refreshing = read(db)
        .then((value) => {
          entry.value = value;
        })
        .catch(() => undefined)
        .finally(() => {
          entry.at = Date.now();
          entry.refreshing = null;
        });
    }
    return cached.value;
  };
}

/** The statistics' pairs of common values and their shares: a column's values, or an array column's elements. */
const commonPairs = {
  values: { vals: sql.raw('most_common_vals'), shares: sql.raw('most_common_freqs') },
  elements: { vals: sql.raw('most_common_elems'), shares: sql.raw('most_common_elem_freqs') },
} as const;

async function commonShares(db: ReadDb, table: string, column: string, of: keyof typeof commonPairs): Promise<Map<string, number> | null> {
  const pair = commonPairs[of];
  const { rows } = await sql<{ vals: string[] | null; shares: number[] | null }>`
    select ${pair.vals}::text::text[] as vals, ${pair.shares}::float8[] as shares
    from pg_stats where schemaname = current_schema() and tablename = ${table} and attname = ${column}`.execute(db);
  const row = rows[0];
  if (!row?.vals || !row.shares) return null;
  return new Map(row.vals.map((value, i) => [value, row.shares?.[i] ?? 0]));
}

/** A text column's most common values with their shares of the table's rows, from its statistics (null before any ANALYZE). */
export const commonValueShares = (db: ReadDb, table: string, column: string) => commonShares(db, table, column, 'values');

/** An array column's most common elements with the share of the table's rows holding each, from its statistics (null before any ANALYZE). */
export const commonElementShares = (db: ReadDb, table: string, column: string) => commonShares(db, table, column, 'elements');
