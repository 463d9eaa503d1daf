import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';
import { statsCache } from './stats-cache.ts';

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
export const orderWindows = statsCache(read);

/**
 * The lower bound (inclusive) of a window that starts below `from` (a creation time, or
 * null for the head of the order) and spans about `rows` assets; null when it reaches
 * the end of the order.
 */
export function windowBound(windows: OrderWindows, from: string | null, rows: number): string | null {
  const { bounds } = windows;
  const first = firstSliceBelow(windows, from);
  const at = first + Math.max(1, Math.ceil(rows / windows.rowsPerSlice)) - 1;
  return at < bounds.length - 1 ? (bounds[at] as string) : null;
}

/** The index of the first slice bound below `from` (0 for the head of the order). */
function firstSliceBelow({ bounds }: OrderWindows, from: string | null): number {
  let first = 0;
  // Both are ISO text with microseconds in UTC: text order is time order.
  if (from !== null) while (first < bounds.length && (bounds[first] as string) >= from) first += 1;
  return first;
}

/**
 * About how many assets of the order lie between `from` (a creation time, or null for the
 * head) and `to`, below it: the slices between them, at least one.
 */
export function orderSpan(windows: OrderWindows, from: string | null, to: string): number {
  return Math.max(1, firstSliceBelow(windows, to) - firstSliceBelow(windows, from)) * windows.rowsPerSlice;
}

/** The fewest assets a window spans to be wide (`isWideWindow`; plan tests over a few thousand assets pass fewer). */
export const defaultWideWindowRows = 100_000;

/**
 * Whether the window from `from` down to `bound` (windowBound; null: the end of the order)
 * is wide: it spans at least `wideRows` assets. The windows are sized to hold about twice
 * the rows a page still needs at the density the walk or the windows before met, so a wide
 * one was sized for a filter whose matches are rare; at that density all of the filter's
 * matches, above the cursor too, cost less to fetch through the filter's own index than
 * the window's span of the order's index costs to read (about 0.15 µs an entry) to cut
 * them. PostgreSQL, which guessed a rare title prefix common (272 titles guessed at 1 % of
 * the assets), read 469,000 entries of the order's index to cut them: 74 ms of a 76 ms
 * statement (docs/benchmarks.md, fifteenth sitting).
 */
export function isWideWindow(windows: OrderWindows, from: string | null, bound: string | null, wideRows = defaultWideWindowRows): boolean {
  const first = firstSliceBelow(windows, from);
  const last = bound === null ? windows.bounds.length - 1 : firstSliceBelow(windows, bound);
  return (last - first) * windows.rowsPerSlice >= wideRows;
}
