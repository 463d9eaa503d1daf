import { lowercaseAsPostgres } from '@cairn/platform';
import type { ReadDb } from '../schema.ts';
import { metadataPath, valueReadings } from './asset-filters.ts';
import { isLeafPath, isLeafValue } from './metadata-leaves.ts';
import type { OrderDriver } from './order-drivers.ts';
import { commonElementShares, commonValueShares, statsCache } from './stats-cache.ts';

/*
 * Which filter a page walks (order-drivers.ts): the likely rarest of those with an ordered
 * index, from a listing's filters or a structured query's top-level conditions, and for
 * several tags the rarest by the tag column's statistics.
 */

/** The key lengths of the title prefix indexes (migration 0034), longest first. */
const titlePrefixKeyLengths = [10, 6, 3] as const;

/**
 * A title prefix as what a walk follows: the index of the longest key it fills. A prefix
 * shorter than the shortest key has none (the windows read it). Characters are counted as
 * PostgreSQL's `left` counts them, by code point.
 */
function titlePrefixPrimary(prefix: string | undefined): Extract<OrderDriver['primary'], { kind: 'title_prefix' }> | undefined {
  if (!prefix) return undefined;
  const length = [...lowercaseAsPostgres(prefix)].length;
  const keyLength = titlePrefixKeyLengths.find((n) => n <= length);
  return keyLength === undefined ? undefined : { kind: 'title_prefix', value: prefix, keyLength };
}

/**
 * The driver of a listing's filters: an owner (its assets are usually the fewest), else a
 * collection (a hundred assets, typically), else a metadata value (one reading only: `n:3` is the number and the text, two walks), else a
 * tag, else a title prefix of 6 characters or more, else a single record type, else a
 * shorter title prefix, else `q`; the walk checks the other tags (walk-sizes.ts, order-drivers.ts). Nothing when no filter
 * has an ordered index.
 */
export function listingDriver(filter: {
  readonly ownerId?: string | undefined;
  readonly collectionId?: string | undefined;
  readonly metadata?: readonly string[] | undefined;
  readonly tags: readonly string[];
  readonly recordTypes: readonly string[];
  readonly titlePrefix?: string | undefined;
  readonly q?: string | undefined;
}): OrderDriver | undefined {
  const metadata = (filter.metadata ?? []).map((entry) => {
    const colon = entry.indexOf(':');
    return colon < 0 ? undefined : metadataPrimary(metadataPath(entry.slice(0, colon)), valueReadings(entry.slice(colon + 1)));
  });
  const recordType = filter.recordTypes.length === 1 ? filter.recordTypes[0] : undefined;
  return driverOf({
    ownerId: filter.ownerId,
    collectionId: filter.collectionId?.toLowerCase(),
    metadata: metadata.find((m) => m !== undefined),
    tags: filter.tags,
    recordType,
    recordTypes: filter.recordTypes,
    titlePrefix: titlePrefixPrimary(filter.titlePrefix),
    q: filter.q || undefined,
  });
}

type DriverCandidates = {
  readonly ownerId: string | undefined;
  readonly collectionId: string | undefined;
  readonly metadata: OrderDriver['primary'] | undefined;
  readonly tags: readonly string[];
  readonly recordType: string | undefined;
  /** Every record type a match may have (none: any); checked on the entries of a walk whose postings hold it. */
  readonly recordTypes: readonly string[];
  readonly titlePrefix: Extract<OrderDriver['primary'], { kind: 'title_prefix' }> | undefined;
  readonly q: string | undefined;
};

/**
 * The likely rarest of the filters that have a walk. A title prefix of 6 characters or more
 * (a word and more: about a thousandth of the benchmark's titles) is taken as rarer than a
 * record type (a few percent), a shorter one as commoner; `q` walks the whole order, so
 * it comes last.
 */
function driverOf(candidates: DriverCandidates): OrderDriver | undefined {
  const { ownerId, collectionId, metadata, recordType, recordTypes, titlePrefix, q } = candidates;
  const tags = [...new Set(candidates.tags)];
  const along = (primary: OrderDriver['primary']): OrderDriver => {
    const driver: OrderDriver = { primary, probedTags: tags.filter((t) => primary.kind !== 'tag' || t !== primary.value) };
    return (primary.kind === 'tag' || primary.kind === 'metadata') && recordTypes.length > 0 ? { ...driver, recordTypes: [...new Set(recordTypes)] } : driver;
  };
  if (ownerId !== undefined) return along({ kind: 'owner_id', value: ownerId });
  if (collectionId !== undefined) return along({ kind: 'collection', value: collectionId });
  if (metadata) return along(metadata);
  if (tags[0] !== undefined) return along({ kind: 'tag', value: tags[0] });
  if (titlePrefix && titlePrefix.keyLength >= 6) return along(titlePrefix);
  if (recordType !== undefined) return along({ kind: 'record_type', value: recordType });
  if (titlePrefix) return along(titlePrefix);
  if (q !== undefined) return along({ kind: 'q', value: q });
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
 * type (`eq`), a tag (`contains`, or `eq` with one value), a metadata value (`eq`, or
 * `contains` of a scalar) and a title `prefix` (the listing's `title_prefix`: the query has
 * no substring of the title). Only called on a query that compiled, so the values are valid.
 */
export function queryDriver(where: unknown): OrderDriver | undefined {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const parts = isObject(where) && Array.isArray(where['and']) && Object.keys(where).length === 1 ? (where['and'] as unknown[]) : [where];
  let owner: string | undefined;
  let collection: string | undefined;
  let recordType: string | undefined;
  let metadata: OrderDriver['primary'] | undefined;
  let titlePrefix: DriverCandidates['titlePrefix'];
  let recordTypes: string[] | undefined;
  const tags: string[] = [];
  for (const part of parts) {
    if (!isObject(part)) continue;
    const { field, op, value } = part as { field: unknown; op: unknown; value: unknown };
    if (typeof field === 'string' && field.startsWith('metadata.') && (op === 'eq' || op === 'contains')) metadata ??= metadataPrimary(field.slice('metadata.'.length).split('.'), [value]);
    if (field === 'record_type' && op === 'in' && Array.isArray(value) && value.every((v) => typeof v === 'string')) recordTypes ??= value as string[];
    if (typeof value !== 'string') continue;
    if (field === 'owner_id' && op === 'eq' && uuidText.test(value)) owner ??= value.toLowerCase();
    else if (field === 'collection_id' && (op === 'eq' || op === 'contains') && uuidText.test(value)) collection ??= value.toLowerCase();
    else if (field === 'tags' && (op === 'contains' || op === 'eq')) tags.push(value);
    else if (field === 'record_type' && op === 'eq') {
      recordType ??= value;
      recordTypes ??= [value];
    }
    else if (field === 'title' && op === 'prefix') titlePrefix ??= titlePrefixPrimary(value);
  }
  return driverOf({ ownerId: owner, collectionId: collection, metadata, tags, recordType, recordTypes: recordTypes ?? [], titlePrefix, q: undefined });
}

/**
 * A range on a metadata number as what a walk follows, when asset_metadata_numbers holds
 * the path: a path the table keeps (isLeafPath), no key of which PostgreSQL could read as
 * a list's index (`metadata #> '{sizes,0}'` reaches into a list, whose numbers the table
 * does not hold), and a finite number.
 */
export function rangePrimary(path: readonly string[], op: unknown, value: unknown): Extract<OrderDriver['primary'], { kind: 'metadata_range' }> | undefined {
  if (op !== 'gt' && op !== 'gte' && op !== 'lt' && op !== 'lte') return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  if (!isLeafPath(path) || path.some((key) => /^\s*[-+]?\d+\s*$/.test(key))) return undefined;
  return { kind: 'metadata_range', path, op, value };
}

/** The tags a query's matches must all hold (`contains`, or `eq` with one value, in its top-level `and`): a walk probes them. */
export function queryTags(where: unknown): string[] {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const parts = isObject(where) && Array.isArray(where['and']) && Object.keys(where).length === 1 ? (where['and'] as unknown[]) : [where];
  const tags = parts.filter(isObject).filter((p) => p['field'] === 'tags' && (p['op'] === 'contains' || p['op'] === 'eq') && typeof p['value'] === 'string').map((p) => p['value'] as string);
  return [...new Set(tags)];
}

/** How common each tag is (its share of asset_tag_order's rows), from the column's statistics (migration 0032 keeps up to 1,000 tags). */
const tagShares = statsCache((db) => commonValueShares(db, 'asset_tag_order', 'tag'));

/**
 * The driver with its tags rarest first: the walk follows the first tag's rows and checks
 * the others on its entries (tagsOnEntries), so it meets matches soonest along the rarest. A tag the statistics do not
 * list is rarer than any they do.
 */
export async function rarestTagFirst(db: ReadDb, driver: OrderDriver | undefined): Promise<OrderDriver | undefined> {
  if (driver?.primary.kind !== 'tag' || driver.probedTags.length === 0) return driver;
  const shares = await tagShares(db);
  if (!shares) return driver;
  const [rarest, ...others] = [driver.primary.value, ...driver.probedTags].sort((x, y) => (shares.get(x) ?? 0) - (shares.get(y) ?? 0)) as [string, ...string[]];
  return { ...driver, primary: { kind: 'tag', value: rarest }, probedTags: others };
}

/** How many assets hold each common tag, and have each common record type, as shares of all assets. */
const tagAssetShares = statsCache((db) => commonElementShares(db, 'assets', 'tags'));
const recordTypeShares = statsCache((db) => commonValueShares(db, 'assets', 'record_type'));

/**
 * The share of all assets likely to meet a tag's or a record type's driver and what its walk
 * checks: each tag's share times the record types' (their sum, at most 1), taken as
 * independent. None when a value is not among the statistics' common ones (it is rarer than
 * any they list), when the statistics are missing, or for another driver.
 */
export function expectedShare(driver: OrderDriver, tagShares: ReadonlyMap<string, number> | null, typeShares: ReadonlyMap<string, number> | null): number | undefined {
  if (driver.primary.kind !== 'tag' && driver.primary.kind !== 'record_type') return undefined;
  const tags = driver.primary.kind === 'tag' ? [driver.primary.value, ...driver.probedTags] : driver.probedTags;
  const types = driver.primary.kind === 'record_type' ? [driver.primary.value] : (driver.recordTypes ?? []);
  let share = 1;
  for (const tag of tags) {
    const s = tagShares?.get(tag);
    if (s === undefined) return undefined;
    share *= s;
  }
  if (types.length > 0) {
    let sum = 0;
    for (const type of types) {
      const s = typeShares?.get(type);
      if (s === undefined) return undefined;
      sum += s;
    }
    share *= Math.min(sum, 1);
  }
  return share;
}

/** A tag's or a record type's driver with its expectedShare (`share`), from the statistics (read at most every 30 s). */
export async function withExpectedShare(db: ReadDb, driver: OrderDriver | undefined): Promise<OrderDriver | undefined> {
  if (driver?.primary.kind !== 'tag' && driver?.primary.kind !== 'record_type') return driver;
  const tags = driver.primary.kind === 'tag' || driver.probedTags.length > 0;
  const types = driver.primary.kind === 'record_type' || (driver.recordTypes ?? []).length > 0;
  const [tagShares, typeShares] = await Promise.all([tags ? tagAssetShares(db) : null, types ? recordTypeShares(db) : null]);
  const share = expectedShare(driver, tagShares, typeShares);
  return share === undefined ? driver : { ...driver, share };
}
