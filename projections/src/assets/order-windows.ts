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

/** The fewest assets a window spans to be wide (`isWideWindow`). */
export const wideWindowRows = 50_000;

/**
 * Whether the window from `from` down to `bound` (windowBound) is wide: it reaches the end
 * of the order, or spans at least a tenth of the order below `from` and `wideWindowRows`
 * assets. The windows are sized to hold about twice the matches a page still needs, so a
 * wide one was sized for a filter whose matches are rare below `from`: fetching all of
 * them through the filter's own index costs less than reading the window's span of the
 * order's index to cut them, which is what PostgreSQL did when it guessed the filter
 * common (a title prefix guessed at 1 % of the assets that 272 hold: the order's index read
 * for 469,000 entries, 74 ms of a 76 ms statement; docs/benchmarks.md, fifteenth sitting).
 */
export function isWideWindow(windows: OrderWindows, from: string | null, bound: string | null): boolean {
  if (bound === null) return true;
  const first = firstSliceBelow(windows, from);
  const slicesBelow = windows.bounds.length - 1 - first;
  const spanned = firstSliceBelow(windows, bound) - first;
  return spanned * windows.rowsPerSlice >= wideWindowRows && 10 * spanned >= slicesBelow;
}
