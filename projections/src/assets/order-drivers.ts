import { sql, type RawBuilder } from 'kysely';
import type { ReadDb } from '../schema.ts';
import { afterInOrder } from '../keyset.ts';
import { statsCache } from './stats-cache.ts';
import { metadataPath, valueReadings } from './asset-filters.ts';
import { isLeafPath, isLeafValue, leafTerm, type MetadataLeaf } from './metadata-leaves.ts';

/**
 * A filter whose matches an index holds in the listing's order (-created_at, id): a page
 * walks them from the cursor and stops when it is full, instead of gathering every match
 * and sorting them. A tag walks asset_tag_order (migration 0032), a metadata value
 * asset_metadata_order (migration 0033), a record type and an owner their own indexes of
 * `assets` (migration 0011). Other tags are probed by key in asset_tag_order as the walk
 * goes (index entries only); the other filters are checked on the assets the walk meets.
 */
export type OrderDriver = {
  /** What the walk follows. */
  readonly primary:
    | { readonly kind: 'tag'; readonly value: string }
    | { readonly kind: 'metadata'; readonly path: readonly string[]; readonly value: MetadataLeaf['value'] }
    | { readonly kind: 'record_type' | 'owner_id'; readonly value: string };
  /** Tags the walk's rows must also hold, probed by key in asset_tag_order as the walk goes. */
  readonly probedTags: readonly string[];
};

/** Where a walk starts: strictly after this position of the order. */
export type WalkStart = { readonly createdAt: string; readonly id: string } | null;

/**
 * The driver of a listing's filters: an owner (its assets are usually the fewest), else a
 * metadata value (one reading only: `n:3` is the number and the text, two walks), else a
 * tag, else a single record type; the walk probes the other tags. Nothing when no filter
 * has an ordered index.
 */
export function listingDriver(filter: {
  readonly ownerId?: string | undefined;
  readonly metadata?: readonly string[] | undefined;
  readonly tags: readonly string[];
  readonly recordTypes: readonly string[];
}): OrderDriver | undefined {
  const metadata = (filter.metadata ?? []).map((entry) => {
    const colon = entry.indexOf(':');
    return colon < 0 ? undefined : metadataPrimary(metadataPath(entry.slice(0, colon)), valueReadings(entry.slice(colon + 1)));
  });
  const recordType = filter.recordTypes.length === 1 ? filter.recordTypes[0] : undefined;
  return driverOf(filter.ownerId, metadata.find((m) => m !== undefined), filter.tags, recordType);
}

function driverOf(ownerId: string | undefined, metadata: OrderDriver['primary'] | undefined, tagList: readonly string[], recordType: string | undefined): OrderDriver | undefined {
  const tags = [...new Set(tagList)];
  const along = (primary: OrderDriver['primary']): OrderDriver => ({ primary, probedTags: tags.filter((t) => primary.kind !== 'tag' || t !== primary.value) });
  if (ownerId !== undefined) return along({ kind: 'owner_id', value: ownerId });
  if (metadata) return along(metadata);
  if (tags[0] !== undefined) return along({ kind: 'tag', value: tags[0] });
  if (recordType !== undefined) return along({ kind: 'record_type', value: recordType });
  return undefined;
}

const uuidText = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A metadata value as what a walk follows, when asset_metadata_order holds its rows. */
function metadataPrimary(path: readonly string[], readings: readonly unknown[]): OrderDriver['primary'] | undefined {
  const [value] = readings;
  return readings.length === 1 && isLeafPath(path) && isLeafValue(value) ? { kind: 'metadata', path, value } : undefined;
}

/**
 * The driver of a structured query, by the listing's rule, from the conditions every match
 * must meet (the whole query, or the parts of its top-level `and`): an owner or a record
 * type (`eq`), a tag (`contains`, or `eq` with one value) and a metadata value (`eq`, or
 * `contains` of a scalar). Only called on a query that compiled, so the values are valid.
 */
export function queryDriver(where: unknown): OrderDriver | undefined {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const parts = isObject(where) && Array.isArray(where['and']) && Object.keys(where).length === 1 ? (where['and'] as unknown[]) : [where];
  let owner: string | undefined;
  let recordType: string | undefined;
  let metadata: OrderDriver['primary'] | undefined;
  const tags: string[] = [];
  for (const part of parts) {
    if (!isObject(part)) continue;
    const { field, op, value } = part as { field: unknown; op: unknown; value: unknown };
    if (typeof field === 'string' && field.startsWith('metadata.') && (op === 'eq' || op === 'contains')) metadata ??= metadataPrimary(field.slice('metadata.'.length).split('.'), [value]);
    if (typeof value !== 'string') continue;
    if (field === 'owner_id' && op === 'eq' && uuidText.test(value)) owner ??= value.toLowerCase();
    else if (field === 'tags' && (op === 'contains' || op === 'eq')) tags.push(value);
    else if (field === 'record_type' && op === 'eq') recordType ??= value;
  }
  return driverOf(owner, metadata, tags, recordType);
}

/**
 * The driver's matches after `start`, in the listing's order, at most `cap` of them: a
 * subquery of (id, created_at) read from the index alone.
 */
export function driverWalk(driver: OrderDriver, start: WalkStart, cap: number): RawBuilder<unknown> {
  const { primary } = driver;
  const onAssets = primary.kind === 'owner_id' || primary.kind === 'record_type';
  const [from, id] = onAssets ? [sql`assets w`, sql`w.id`] : [primary.kind === 'tag' ? sql`asset_tag_order w` : sql`asset_metadata_order w`, sql`w.asset_id`];
  const after = afterInOrder(sql`w.created_at`, id, start);
  const followed =
    primary.kind === 'tag'
      ? sql`w.tag = ${primary.value}`
      : primary.kind === 'metadata'
        ? sql`w.term = ${leafTerm(primary.path, primary.value)}::bigint`
        : primary.kind === 'owner_id'
          ? sql`w.owner_id = ${primary.value}::uuid`
          : sql`w.record_type = ${primary.value}`;
  // Probed row by row, by key (a scalar subquery: as `exists`, PostgreSQL would hash every
  // row of the other tag and sort the join, where the walk stops early).
  const probes = driver.probedTags.map((tag) => sql` and (select true from asset_tag_order o where o.tag = ${tag} and o.created_at = w.created_at and o.asset_id = ${id})`);
  return sql`select ${id} as id, w.created_at from ${from}
    where ${followed} and ${after}${sql.join(probes, sql``)}
    order by w.created_at desc, ${id} limit ${cap}::integer`;
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
  if (driver?.primary.kind !== 'tag' || driver.probedTags.length === 0) return driver;
  const shares = await tagShares(db);
  if (!shares) return driver;
  const [rarest, ...others] = [driver.primary.value, ...driver.probedTags].sort((x, y) => (shares.get(x) ?? 0) - (shares.get(y) ?? 0)) as [string, ...string[]];
  return { primary: { kind: 'tag', value: rarest }, probedTags: others };
}
