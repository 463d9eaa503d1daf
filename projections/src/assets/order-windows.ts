import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';

/**
 * Creation times that cut the listing's order into slices of about equal size: the
 * histogram PostgreSQL keeps of `assets.created_at` (migration 0022 asks for 1,000 slices),
 * newest first. A filtered page walks its candidates one window of slices at a time
 * (asset-page.ts), so that no filter, however its matches lie, makes a page gather and sort
 * all of them. They are only a guide to where windows end: stale ones (assets created
 * since the last ANALYZE) make the first window larger, never a page wrong.
 */
export type OrderWindows = {
  /** Slice bounds, newest first, with microseconds. */
  readonly bounds: readonly string[];
  /** About how many assets each slice holds. */
  readonly rowsPerSlice: number;
};

const refreshMs = 30_000;
/** Without a histogram yet (a table never analyzed), look again sooner. */
const retryMs = 2_000;
type Cached = { value: OrderWindows | null; at: number; refreshing: Promise<void> | null };
const cache = new WeakMap<ReadDb, Cached>();

async function read(db: ReadDb): Promise<OrderWindows | null> {
  const { rows } = await sql<{ bounds: string[] | null; tuples: number }>`
    select array(select to_char(b at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') from unnest(s.histogram_bounds::text::timestamptz[]) b order by b desc) as bounds,
      greatest(c.reltuples, 0)::float8 as tuples
    from pg_stats s join pg_class c on c.oid = to_regclass('assets')
    where s.schemaname = current_schema() and s.tablename = 'assets' and s.attname = 'created_at'`.execute(db);
  const row = rows[0];
  if (!row?.bounds || row.bounds.length < 3 || row.tuples < 1) return null;
  return { bounds: row.bounds, rowsPerSlice: Math.max(1, row.tuples / (row.bounds.length - 1)) };
}

/** The windows as last read; read again in the background when older than 30 s. */
export async function orderWindows(db: ReadDb): Promise<OrderWindows | null> {
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
}

/**
 * The lower bound (inclusive) of a window that starts below `from` (a creation time, or
 * null for the head of the order) and spans about `rows` assets; null when it reaches
 * the end of the order.
 */
export function windowBound(windows: OrderWindows, from: string | null, rows: number): string | null {
  const { bounds } = windows;
  let first = 0;
  // Both are ISO text with microseconds in UTC: text order is time order.
  if (from !== null) while (first < bounds.length && (bounds[first] as string) >= from) first += 1;
  const at = first + Math.max(1, Math.ceil(rows / windows.rowsPerSlice)) - 1;
  return at < bounds.length - 1 ? (bounds[at] as string) : null;
}
