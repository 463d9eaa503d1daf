import { sql, type RawBuilder } from 'kysely';
import type { ReadDb } from '../schema.ts';
import { preparedStatement } from '../prepared-statements.ts';
import { statsCache } from './stats-cache.ts';
import { metadataPath, valueReadings } from './asset-filters.ts';
import { isLeafPath, isLeafValue, type MetadataLeaf } from './metadata-leaves.ts';

/**
 * A filter whose matches an index holds in the listing's order (-created_at, id): a page
 * walks them from the cursor and stops when it is full, instead of gathering every match
 * and sorting them. A tag walks asset_tag_order (migration 0032), a metadata value
 * asset_metadata_order (migration 0033), a record type and an owner their own indexes of
 * `assets` (migration 0011). The other filters are checked on
 * the rows the walk meets.
 */
export type OrderDriver =
  | { readonly kind: 'tags'; readonly values: readonly [string, ...string[]] }
  | { readonly kind: 'metadata'; readonly path: readonly string[]; readonly value: MetadataLeaf['value'] }
  | { readonly kind: 'record_type' | 'owner_id'; readonly value: string };

/** Where a walk starts: strictly after this position of the order. */
export type WalkStart = { readonly createdAt: string; readonly id: string } | null;

/**
 * The driver of a listing's filters: an owner (its assets are usually the fewest), else a
 * metadata value (one reading only: `n:3` is the number and the text, two walks), else its
 * tags (the walk follows the first and probes the others' rows by key), else a single
 * record type. Nothing when no filter has an ordered index.
 */
export function listingDriver(filter: {
  readonly ownerId?: string | undefined;
  readonly metadata?: readonly string[] | undefined;
  readonly tags: readonly string[];
  readonly recordTypes: readonly string[];
}): OrderDriver | undefined {
  if (filter.ownerId) return { kind: 'owner_id', value: filter.ownerId };
  for (const entry of filter.metadata ?? []) {
    const colon = entry.indexOf(':');
    if (colon < 0) continue;
    const driver = metadataDriver(metadataPath(entry.slice(0, colon)), valueReadings(entry.slice(colon + 1)));
    if (driver) return driver;
  }
  const [tag, ...more] = filter.tags;
  if (tag !== undefined) return { kind: 'tags', values: [tag, ...more] };
  if (filter.recordTypes.length === 1 && filter.recordTypes[0] !== undefined) return { kind: 'record_type', value: filter.recordTypes[0] };
  return undefined;
}

const uuidText = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A metadata value as a driver, when asset_metadata_order holds its rows. */
function metadataDriver(path: readonly string[], readings: readonly unknown[]): OrderDriver | undefined {
  const [value] = readings;
  return readings.length === 1 && isLeafPath(path) && isLeafValue(value) ? { kind: 'metadata', path, value } : undefined;
}

/**
 * The driver of a structured query: a condition every match must meet (the whole query, or
 * a part of its top-level `and`) that names one tag (`contains`, or `eq` with one value;
 * several such parts make one driver of all their tags), one metadata value (`eq` or
 * `contains` of a scalar), one record type or one owner (`eq`). Only called on a query that compiled, so the
 * values are valid.
 */
export function queryDriver(where: unknown): OrderDriver | undefined {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const parts = isObject(where) && Array.isArray(where['and']) && Object.keys(where).length === 1 ? (where['and'] as unknown[]) : [where];
  let owner: string | undefined;
  let recordType: string | undefined;
  let metadata: OrderDriver | undefined;
  const tags: string[] = [];
  for (const part of parts) {
    if (!isObject(part)) continue;
    const { field, op, value } = part as { field: unknown; op: unknown; value: unknown };
    if (typeof field === 'string' && field.startsWith('metadata.') && (op === 'eq' || op === 'contains')) metadata ??= metadataDriver(field.slice('metadata.'.length).split('.'), [value]);
    if (typeof value !== 'string') continue;
    if (field === 'owner_id' && op === 'eq' && uuidText.test(value)) owner ??= value.toLowerCase();
    else if (field === 'tags' && (op === 'contains' || op === 'eq')) tags.push(value);
    else if (field === 'record_type' && op === 'eq') recordType ??= value;
  }
  if (owner === undefined && metadata) return metadata;
  return listingDriver({ ownerId: owner, tags, recordTypes: recordType === undefined ? [] : [recordType] });
}

/**
 * The driver's matches after `start`, in the listing's order, at most `cap` of them: a
 * subquery of (id, created_at) read from the index alone.
 */
export function driverWalk(driver: OrderDriver, start: WalkStart, cap: number): RawBuilder<unknown> {
  const from = (created: string, id: string) =>
    start === null
      ? sql`true`
      : sql`${sql.ref(created)} <= ${start.createdAt}::timestamptz and (${sql.ref(created)} < ${start.createdAt}::timestamptz or (${sql.ref(created)} = ${start.createdAt}::timestamptz and ${sql.ref(id)} > ${start.id}::uuid))`;
  if (driver.kind === 'tags') {
    const [first, ...others] = [...new Set(driver.values)] as [string, ...string[]];
    // Probed row by row, by key (a scalar subquery: as `exists`, PostgreSQL would hash
    // every row of the other tag and sort the join, where the walk stops early).
    const holdsOthers = others.map((tag) => sql` and (select true from asset_tag_order o where o.tag = ${tag} and o.created_at = w.created_at and o.asset_id = w.asset_id)`);
    return sql`select w.asset_id as id, w.created_at from asset_tag_order w
      where w.tag = ${first} and ${from('w.created_at', 'w.asset_id')}${sql.join(holdsOthers, sql``)}
      order by w.created_at desc, w.asset_id limit ${cap}::integer`;
  }
  if (driver.kind === 'metadata') {
    return sql`select w.asset_id as id, w.created_at from asset_metadata_order w
      where w.path = ${[...driver.path]}::text[] and w.value = ${JSON.stringify(driver.value)}::jsonb and ${from('w.created_at', 'w.asset_id')}
      order by w.created_at desc, w.asset_id limit ${cap}::integer`;
  }
  const column = driver.kind === 'owner_id' ? sql`w.owner_id = ${driver.value}::uuid` : sql`w.record_type = ${driver.value}`;
  return sql`select w.id, w.created_at from assets w
    where ${column} and ${from('w.created_at', 'w.id')}
    order by w.created_at desc, w.id limit ${cap}::integer`;
}

/**
 * Where a walk of `cap` matches after `start` stopped: its last match, or null when the
 * driver has fewer (the walk saw them all). An index-only walk, asked only of a page the
 * walk left short.
 */
export async function walkStop(db: ReadDb, driver: OrderDriver, start: WalkStart, cap: number): Promise<{ createdAt: string; id: string } | null> {
  const { rows } = await sql<{ created_at: string; id: string; n: number }>`${preparedStatement}
    select to_char(d.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at, d.id, count(*) over ()::integer as n
    from (${driverWalk(driver, start, cap)}) d order by d.created_at, d.id desc limit 1`.execute(db);
  const last = rows[0];
  return last && last.n >= cap ? { createdAt: last.created_at, id: last.id } : null;
}

/** How common each tag is (its share of asset_tag_order's rows), from the column's statistics (migration 0032 keeps up to 1,000 tags). */
const tagShares = statsCache(async (db) => {
  const { rows } = await sql<{ tags: string[] | null; shares: number[] | null }>`
    select most_common_vals::text::text[] as tags, most_common_freqs::float8[] as shares
    from pg_stats where schemaname = current_schema() and tablename = 'asset_tag_order' and attname = 'tag'`.execute(db);
  const row = rows[0];
  if (!row?.tags || !row.shares) return null;
  return new Map(row.tags.map((tag, i) => [tag, row.shares?.[i] ?? 0]));
});

/**
 * The driver with its tags rarest first: the walk follows the first tag's rows and probes
 * the others', so it meets matches soonest along the rarest. A tag the statistics do not
 * list is rarer than any they do.
 */
export async function rarestTagFirst(db: ReadDb, driver: OrderDriver | undefined): Promise<OrderDriver | undefined> {
  if (driver?.kind !== 'tags' || driver.values.length < 2) return driver;
  const shares = await tagShares(db);
  if (!shares) return driver;
  const values = [...driver.values].sort((x, y) => (shares.get(x) ?? 0) - (shares.get(y) ?? 0)) as [string, ...string[]];
  return { kind: 'tags', values };
}
