import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';
import type { AssetConditions } from './asset-page.ts';
import { pathTerm } from './metadata-leaves.ts';
import { rangeComparators, type OrderDriver } from './order-drivers.ts';
import { commonValueShares, statsCache } from './stats-cache.ts';

/** How many of a path's newest numbers are read to judge how many are in a range. */
const rangeSample = 1_000;

/** The share of the path's newest `rangeSample` numbers that are in the range (0 when the path holds none): an index-only read. */
async function rangeShare(db: ReadDb, primary: Extract<OrderDriver['primary'], { kind: 'metadata_range' }>): Promise<number> {
  const { rows } = await sql<{ share: number }>`
    select coalesce(avg(case when s.value ${sql.raw(rangeComparators[primary.op])} ${primary.value}::numeric then 1 else 0 end), 0)::float8 as share
    from (select w.value from asset_metadata_numbers w where w.path = ${pathTerm(primary.path)}::bigint order by w.created_at desc, w.asset_id limit ${rangeSample}::integer) s`.execute(db);
  return rows[0]?.share ?? 0;
}

/** Each common record type's share of the assets, from the column's statistics. */
const recordTypeShares = statsCache((db) => commonValueShares(db, 'assets', 'record_type'));

/** What a walk pays per entry of asset_metadata_numbers it reads, and per asset it fetches and checks (µs, at 1,000,000 assets: docs/benchmarks.md). */
const entryMicros = 0.1;
const fetchMicros = 7;

/**
 * The conditions a page runs: driven by the query's range on a metadata number
 * (`conditions.range`) when that walk meets matches sooner than the driver the conditions
 * have. An owner, a collection, a metadata value, a tag and a long title prefix are taken as rarer than
 * any range. Beside a record type, the range's entries hold the type too (migration 0038):
 * the walk reads 1 / (range share × type share) entries a match and fetches only matches,
 * where the type's walk fetches 1 / (range share) assets a match; the range's share is
 * read off the path's newest numbers, the type's from the statistics. With a short prefix
 * the range walks. Never beside another condition of the scan than the one the driver follows.
 */
export async function withRangeDriver(db: ReadDb, conditions: AssetConditions): Promise<AssetConditions> {
  const { range } = conditions;
  if (!range || range.driver.primary.kind !== 'metadata_range') return conditions;
  const current = conditions.driver?.primary;
  // Another condition of the scan, beside the one the conditions' driver follows, may have
  // an index that finds its few matches (a collection's: 3 assets read where the walk
  // fetched 1,000 in range first): the range then stays a post-filter.
  if (range.where.length > (current ? 2 : 1)) return conditions;
  if (current && (current.kind === 'owner_id' || current.kind === 'collection' || current.kind === 'metadata' || current.kind === 'tag' || (current.kind === 'title_prefix' && current.keyLength >= 6))) return conditions;
  if (current?.kind === 'record_type') {
    // A type the statistics do not list is rarer than any they do; a range none of the sample holds, rarer than the sample shows.
    const typeShare = Math.max((await recordTypeShares(db))?.get(current.value) ?? 0, 1e-4);
    const share = Math.max(await rangeShare(db, range.driver.primary), 1e-3);
    if (entryMicros / (share * typeShare) + fetchMicros >= fetchMicros / share) return conditions;
    return { where: range.where, residual: range.residual, driver: { ...range.driver, primary: { ...range.driver.primary, recordType: current.value } } };
  }
  return { where: range.where, residual: range.residual, driver: range.driver };
}
