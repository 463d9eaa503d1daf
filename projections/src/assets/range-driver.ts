import type { AssetConditions } from './asset-page.ts';

/**
 * The conditions a page runs: driven by the query's range on a metadata number
 * (`conditions.range`) unless the conditions have a driver taken as rarer than any range:
 * an owner, a collection, a metadata value, a tag or a long title prefix. Beside a record
 * type the range drives, along that type's numbers of the path (migration 0043): it reads
 * about 1 / (range share) entries a match (0.1 µs each) and fetches only the matches, where
 * the type's walk fetches 1 / (range share) assets a match (7 µs each, docs/benchmarks.md),
 * so it is the cheaper for any range but one holding nearly every number, where the two
 * cost the same. Until 0043 the range's entries of every type were read, and the choice
 * read the range's share off the path's newest numbers in a statement of its own. With a
 * short prefix the range walks. Never beside another condition of the scan than the one
 * the driver follows.
 */
export function withRangeDriver(conditions: AssetConditions): AssetConditions {
  const { range } = conditions;
  if (!range || range.driver.primary.kind !== 'metadata_range') return conditions;
  const current = conditions.driver?.primary;
  // Another condition of the scan, beside the one the conditions' driver follows, may have
  // an index that finds its few matches (a collection's: 3 assets read where the walk
  // fetched 1,000 in range first): the range then stays a post-filter.
  if (range.where.length > (current ? 2 : 1)) return conditions;
  if (current && (current.kind === 'owner_id' || current.kind === 'collection' || current.kind === 'metadata' || current.kind === 'tag' || (current.kind === 'title_prefix' && current.keyLength >= 6))) return conditions;
  if (current?.kind === 'record_type') return { where: range.where, residual: range.residual, driver: { ...range.driver, primary: { ...range.driver.primary, recordType: current.value } } };
  return { where: range.where, residual: range.residual, driver: range.driver };
}
