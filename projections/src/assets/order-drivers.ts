import { lowercaseAsPostgres } from '@cairn/platform';
import { sql, type RawBuilder } from 'kysely';
import { afterInOrder, unplanned } from '../keyset.ts';
import { leafTerm, pathTerm, type MetadataLeaf } from './metadata-leaves.ts';

/**
 * A filter whose matches an index holds in the listing's order (-created_at, id): a page
 * walks them from the cursor and stops when it is full, instead of gathering every match
 * and sorting them. A tag walks asset_tag_order (migration 0032), a collection
 * collection_assets (migration 0039), a metadata value
 * asset_metadata_order (migration 0033), a record type and an owner their own indexes of
 * `assets` (migration 0011), a title prefix an index of the title's first lowercased
 * characters and `q` the order itself (migration 0034), the text checked on the entries.
 * Other tags are checked on a tag's or a metadata value's entries, which hold their asset's
 * tags hashed (migrations 0049, 0048), and their postings in asset_tag_order joined to an
 * owner's or a collection's (index entries only); the other filters are checked on the
 * assets the walk meets.
 */
export type OrderDriver = {
  /** What the walk follows. */
  readonly primary:
    | { readonly kind: 'tag'; readonly value: string }
    | { readonly kind: 'metadata'; readonly path: readonly string[]; readonly value: MetadataLeaf['value'] }
    | { readonly kind: 'record_type' | 'owner_id'; readonly value: string }
    /** A collection's assets (collection_assets, migration 0039): the filter's own condition still decides who sees what it holds. */
    | { readonly kind: 'collection'; readonly value: string }
    /** `keyLength` first characters of the lowercased prefix are the index's key (titlePrefixKeyLengths). */
    | { readonly kind: 'title_prefix'; readonly value: string; readonly keyLength: number }
    | { readonly kind: 'q'; readonly value: string }
    /**
     * A query's range on the number at a metadata path (asset_metadata_numbers, migration
     * 0036), compared on the entries; with `recordType`, the entries' record type too (migration 0038).
     */
    | { readonly kind: 'metadata_range'; readonly path: readonly string[]; readonly op: RangeOperator; readonly value: number; readonly recordType?: string | undefined }
    /** Every asset (`assets_order`): filters no index holds in the order are checked on each (orderWalk). */
    | { readonly kind: 'order' }
    /**
     * The caller's stars (`asset_stars_order`): the starred part of a page walked as `order`
     * would be (orderWalk), or as `q` would be, `q`'s text checked on each star's entry (migration 0040),
     * or as a record type or tags would be, checked on the entry too (migration 0041), or
     * as a title prefix would be: only the stars whose text starts with the prefix's first
     * characters, the whole prefix checked on each entry (migration 0047).
     */
    | {
        readonly kind: 'stars';
        readonly userId: string;
        readonly q?: string | undefined;
        readonly recordType?: string | undefined;
        readonly tags?: readonly string[] | undefined;
        readonly titlePrefix?: string | undefined;
      };
  /** Tags the walk's rows must also hold: their hashes on a tag's or a metadata value's entries (tagsOnEntries), else their postings in asset_tag_order, joined to the walk's entries (tagJoins). */
  readonly probedTags: readonly string[];
  /**
   * The record types the walk's rows must have (one of them), checked on the entries of a
   * tag's or a metadata value's postings, which hold their asset's type (migration 0042);
   * set only on such a driver (typedWalk).
   */
  readonly recordTypes?: readonly string[] | undefined;
  /**
   * About what share of all assets meet a tag's or a record type's driver with what its
   * walk checks (the statistics' common values, taken as independent: withExpectedShare);
   * unset when a value is not among them. The caller's stars, walked in its stead in the
   * starred part, first read as many as that share needs to fill the page (walkSizes).
   */
  readonly share?: number | undefined;
};

export type RangeOperator = 'gt' | 'gte' | 'lt' | 'lte';

/** Where a walk starts: strictly after this position of the order. */
export type WalkStart = { readonly createdAt: string; readonly id: string } | null;

/**
 * Whether a walk's cap bounds the entries it reads, matching or not, rather than its
 * matches: a driver whose own condition is checked on the entries (a text, a number), or
 * one with tags to probe. Where such a walk stopped is then its cap-th entry, read again
 * from the index alone (0.1–0.3 µs an entry), where a cap of matches had to be found again
 * by checking every entry once more (a rare pair of tags: 6,208 entries probed twice, 21 ms
 * each, docs/benchmarks.md).
 */
export const readsEntries = (driver: OrderDriver) => {
  const { primary, probedTags } = driver;
  return primary.kind === 'title_prefix' || primary.kind === 'q' || primary.kind === 'metadata_range' || (primary.kind === 'stars' && checksStars(primary)) || probedTags.length > 0 || typedWalk(driver);
};

/**
 * Whether a walk checks the other tags on its postings' entries, hashed: a metadata value's
 * (migration 0048) or a tag's (0049), beside tags. Before 0049 a tag's walk joined the other
 * tags' postings over its span (tagJoins, which an owner's and a collection's walks still
 * do), reading its own entries three times and merging the others' (19,911 of
 * `bird-migration`'s for 271 pairs with `ice-core-raw`: 26 ms of a 57 ms page).
 */
export const tagsOnEntries = (driver: OrderDriver) => (driver.primary.kind === 'metadata' || driver.primary.kind === 'tag') && driver.probedTags.length > 0;

/** Whether a walk checks record types on its postings' entries (migration 0042): a tag's or a metadata value's, beside a record type. */
export const typedWalk = (driver: OrderDriver) => (driver.primary.kind === 'tag' || driver.primary.kind === 'metadata') && (driver.recordTypes?.length ?? 0) > 0;

/** Whether a walk of the caller's stars checks something on each star's entry (its asset's text, record type or tags). */
export const checksStars = (primary: Extract<OrderDriver['primary'], { kind: 'stars' }>) =>
  primary.q !== undefined || primary.recordType !== undefined || primary.tags !== undefined || primary.titlePrefix !== undefined;

/** The key of the stars' prefix walk (asset_stars_title_prefix, migration 0047): the prefix's first three lowercased characters, as `left` counts them. */
const starsPrefixKeyLength = 3;

/** A walk's bound, `unplanned`: the statement's plan is kept (page-statements.ts), whatever the bound. */
const walkLimit = (cap: number) => unplanned(cap, 'integer');

/**
 * The driver's entries after `start`, in the listing's order, at most `cap` of them, as
 * (id, created_at) with what they are checked on: the index on the title's first
 * characters for a prefix, the order's own (`assets_order_search`: the title and alias
 * lowercased) for `q`, the path's numbers for a range, the followed value's postings
 * otherwise. Read from the index alone. `guard`, a condition of no entry's (a collection's
 * visibility: collectionGuard), holds for all of a followed value's entries or none.
 */
function entriesOf(driver: OrderDriver, start: WalkStart, cap: number, guard: RawBuilder<unknown>): RawBuilder<unknown> {
  const { primary } = driver;
  if (primary.kind === 'metadata_range') {
    const after = afterInOrder(sql`w.created_at`, sql`w.asset_id`, start, true);
    // Beside a record type, only that type's numbers of the path (asset_metadata_numbers_typed_walk, migration 0043).
    const typed = primary.recordType !== undefined ? sql` and w.record_type = ${primary.recordType}` : sql``;
    return sql`select w.asset_id as id, w.created_at, w.value, w.record_type from asset_metadata_numbers w
      where w.path = ${pathTerm(primary.path)}::bigint${typed} and ${after}
      order by w.created_at desc, w.asset_id limit ${walkLimit(cap)}`;
  }
  if (primary.kind === 'order') {
    return sql`select w.id, w.created_at from assets w where ${afterInOrder(sql`w.created_at`, sql`w.id`, start, true)} order by w.created_at desc, w.id limit ${walkLimit(cap)}`;
  }
  if (primary.kind === 'stars' && primary.titlePrefix !== undefined) {
    // The caller's stars under the prefix's key, merged with those whose text is not known (candidates).
    const after = afterInOrder(sql`w.asset_created_at`, sql`w.asset_id`, start, true);
    const key = [...lowercaseAsPostgres(primary.titlePrefix)].slice(0, starsPrefixKeyLength).join('');
    // The unknown ones' text is null, written so: selecting the column would let a kept (generic) plan prefer
    // asset_stars_order, which holds it, reading every star of the caller to find none (20 ms for 100,000).
    const branch = (which: RawBuilder<unknown>, text: RawBuilder<unknown>) =>
      sql`(select w.asset_id as id, w.asset_created_at as created_at, ${text} as search_text from asset_stars w
        where w.user_id = ${primary.userId}::uuid and ${which} and ${after} order by w.asset_created_at desc, w.asset_id limit ${walkLimit(cap)})`;
    const underKey = branch(sql`left(w.search_text, ${sql.lit(starsPrefixKeyLength)}) = ${key}`, sql`w.search_text`);
    return sql`select u.id, u.created_at, u.search_text from (${underKey} union all ${branch(sql`w.search_text is null`, sql`null::text`)}) u
      order by u.created_at desc, u.id limit ${walkLimit(cap)}`;
  }
  if (primary.kind === 'stars') {
    const after = afterInOrder(sql`w.asset_created_at`, sql`w.asset_id`, start, true);
    return sql`select w.asset_id as id, w.asset_created_at as created_at, w.search_text, w.record_type_hash, w.tag_hashes from asset_stars w
      where w.user_id = ${primary.userId}::uuid and ${after} order by w.asset_created_at desc, w.asset_id limit ${walkLimit(cap)}`;
  }
  if (primary.kind === 'q' || primary.kind === 'title_prefix') {
    const after = afterInOrder(sql`w.created_at`, sql`w.id`, start, true);
    if (primary.kind === 'q') {
      return sql`select w.id, w.created_at, w.search_text from assets w where ${after} order by w.created_at desc, w.id limit ${walkLimit(cap)}`;
    }
    // The key's length is written in the statement: only `left(search_text, 6)` itself matches the index's expression (migration 0044).
    const keyLength = sql.lit(primary.keyLength);
    const key = [...lowercaseAsPostgres(primary.value)].slice(0, primary.keyLength).join('');
    return sql`select w.id, w.created_at, w.search_text from assets w
      where left(w.search_text, ${keyLength}) = ${key} and ${after}
      order by w.created_at desc, w.id limit ${walkLimit(cap)}`;
  }
  const onAssets = primary.kind === 'owner_id' || primary.kind === 'record_type';
  const postings = primary.kind === 'tag' ? sql`asset_tag_order w` : primary.kind === 'collection' ? sql`collection_assets w` : sql`asset_metadata_order w`;
  const [from, id] = onAssets ? [sql`assets w`, sql`w.id`] : [postings, sql`w.asset_id`];
  const after = afterInOrder(sql`w.created_at`, id, start, true);
  const condition = followedValue(primary);
  const typed = typedWalk(driver) ? sql`, w.record_type` : sql``;
  const tagged = tagsOnEntries(driver) ? sql`, w.tag_hashes` : sql``;
  return sql`select ${id} as id, w.created_at${typed}${tagged} from ${from} where ${condition} and ${after} and ${guard} order by w.created_at desc, ${id} limit ${walkLimit(cap)}`;
}

/** The posting's condition of a driver that follows one value. */
function followedValue(primary: Extract<OrderDriver['primary'], { kind: 'tag' | 'metadata' | 'collection' | 'owner_id' | 'record_type' }>): RawBuilder<unknown> {
  switch (primary.kind) {
    case 'tag':
      return sql`w.tag = ${primary.value}`;
    case 'metadata':
      return sql`w.term = ${leafTerm(primary.path, primary.value)}::bigint`;
    case 'collection':
      return sql`w.collection_id = ${primary.value}::uuid`;
    case 'owner_id':
      return sql`w.owner_id = ${primary.value}::uuid`;
    case 'record_type':
      return sql`w.record_type = ${primary.value}`;
  }
}

/**
 * What a walk of a collection's postings needs besides them: that the caller may see the
 * collection (as the filter's own condition says, which the page checks on each asset).
 * Without it a walk of a hidden collection read up to 2,020 of its assets before the
 * checks dropped them all, so the time of an answer told how many it holds, where a
 * random id answers at once (docs/collections.md, "Hidden collection ids").
 */
export function collectionGuard(driver: OrderDriver, principals: readonly string[], isSystemAdmin: boolean): RawBuilder<unknown> {
  if (driver.primary.kind !== 'collection' || isSystemAdmin) return sql`true`;
  return sql`exists (select 1 from collections k where k.id = ${driver.primary.value}::uuid and k.readers && ${[...principals]}::text[])`;
}

/**
 * A range's numbers gathered by value (asset_metadata_numbers_by_value and _typed_by_value,
 * migration 0050): the path's numbers in range (of the record type beside it), at most
 * `most + 1` of them, read from the index alone from the range's bound outwards, as
 * (id, created_at) in no useful order. The bound counts every number read, wherever it
 * stands in the listing's order (no index keyed by value holds the order, so the page
 * checks its cursor on the gathered rows): a gather never reads more than `most + 1`
 * entries, and one that read that many may have left some out, so the page walks instead.
 * A rare range holds few numbers, where a walk of the path's numbers in the listing's order
 * reads fifty of its entries per match for a range holding 2 % of them, and many more for
 * the starred part of a caller who starred a tenth of the assets (`dataset` and
 * `size > 980`: 64,259 entries for 1,286 in range).
 */
export function rangeGather(driver: OrderDriver, most: number): RawBuilder<unknown> {
  const { primary } = driver;
  if (primary.kind !== 'metadata_range') throw new Error('only a range is gathered by value');
  const typed = primary.recordType !== undefined ? sql` and w.record_type = ${primary.recordType}` : sql``;
  // From the bound outwards, so that the index's order of values serves the limit whatever PostgreSQL guesses of the range.
  const outwards = primary.op === 'gt' || primary.op === 'gte' ? sql`w.value` : sql`w.value desc`;
  return sql`select w.asset_id as id, w.created_at from asset_metadata_numbers w
    where w.path = ${pathTerm(primary.path)}::bigint${typed} and w.value ${sql.raw(rangeComparators[primary.op])} ${primary.value}::numeric
    order by ${outwards} limit ${sql.lit(most + 1)}`;
}

/** Each range operator's SQL comparison. */
export const rangeComparators: Readonly<Record<RangeOperator, string>> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

/**
 * What a star `s` of the caller's is checked on before its asset is fetched: when the walk
 * of a page's starred part is one of the stars with a check (partWalk: `q`, a record type,
 * tags), the star's copies, as a walk of the stars checks them (entryCheck); beside a
 * metadata value's or an owner's walk, the star's copy of its asset's terms or owner
 * (migration 0053) and of its tags (copiedChecks). None otherwise.
 */
export function starEntryCheck(driver: OrderDriver): RawBuilder<unknown> | undefined {
  if (driver.primary.kind === 'metadata' || driver.primary.kind === 'owner_id') return sql.join(copiedChecks(driver), sql` and `);
  if (driver.primary.kind !== 'stars' || !checksStars(driver.primary)) return undefined;
  return entryCheck(driver, 's');
}

/**
 * A metadata value's or an owner's filter on a star's copies (null: none known, a candidate
 * the page checks on its asset), with the other tags the walk probes. Each value worked out
 * once, as a subquery: in a kept (generic) plan, an expression of a parameter is computed
 * again for every star.
 */
function copiedChecks(driver: OrderDriver): RawBuilder<unknown>[] {
  const { primary, probedTags } = driver;
  const own =
    primary.kind === 'metadata'
      ? sql`(s.metadata_terms is null or s.metadata_terms @> (select array[${leafTerm(primary.path, primary.value)}::bigint]))`
      : primary.kind === 'owner_id'
        ? sql`(s.owner_id is null or s.owner_id = ${primary.value}::uuid)`
        : sql`true`;
  return [own, ...(probedTags.length > 0 ? [starTagsCheck(sql.raw('s'), probedTags)] : [])];
}

/** A star's (`e`) copy of its asset's tags, hashed (migration 0041), holds every one of `tags`; none known (null), a candidate. The hashes worked out once, as a subquery (see the record type's). */
const starTagsCheck = (e: RawBuilder<unknown>, tags: readonly string[]) => sql`(${e}.tag_hashes is null or ${e}.tag_hashes @> (select cairn_text_hashes(${[...tags]}::text[])))`;

/** What an entry of the driver (`e`, or `alias`) is checked on: the filter's own condition, as the listing or the query writes it on the asset, and the tags to probe. */
function entryCheck(driver: OrderDriver, alias: 'e' | 's' = 'e'): RawBuilder<unknown> {
  const e = sql.raw(alias);
  const { primary } = driver;
  const own =
    primary.kind === 'metadata_range'
      ? [sql`${e}.value ${sql.raw(rangeComparators[primary.op])} ${primary.value}::numeric`, ...(primary.recordType !== undefined ? [sql`${e}.record_type = ${primary.recordType}`] : [])]
      : primary.kind === 'title_prefix'
        ? // The title and alias lowercased when written (migration 0037), the title first: lowercasing each entry's title cost 2 µs (0044).
          [sql`starts_with(${e}.search_text, ${lowercaseAsPostgres(primary.value)})`]
        : primary.kind === 'q'
          ? // The title and alias, lowercased when written, joined by a line feed (migration 0037). A `q` holding one may match across the two: the page checks the filter itself on each asset it fetches.
            [sql`strpos(${e}.search_text, ${lowercaseAsPostgres(primary.value)}) > 0`]
          : primary.kind === 'stars'
            ? // The star's copies of its asset's text (migration 0040), record type and tags, hashed (0041); none known, or a hash shared by another text, the asset is fetched and checked.
              [
                ...(primary.q !== undefined ? [sql`(${e}.search_text is null or strpos(${e}.search_text, ${lowercaseAsPostgres(primary.q)}) > 0)`] : []),
                ...(primary.titlePrefix !== undefined ? [sql`(${e}.search_text is null or starts_with(${e}.search_text, ${lowercaseAsPostgres(primary.titlePrefix)}))`] : []),
                // Each hash worked out once, as a subquery: in a kept (generic) plan, a function of a parameter is called again for every entry.
                ...(primary.recordType !== undefined ? [sql`(${e}.record_type_hash is null or ${e}.record_type_hash = (select cairn_text_hash(${primary.recordType}::text)))`] : []),
                ...(primary.tags !== undefined ? [starTagsCheck(e, primary.tags)] : []),
              ]
            : [];
  // The postings' copy of the record type (migration 0042); the page checks the filter itself on each asset it fetches.
  const typed = typedWalk(driver) ? [sql`${e}.record_type = any(${[...(driver.recordTypes ?? [])]}::text[])`] : [];
  // The metadata postings' copy of the asset's tags, hashed (migration 0048), worked out once as a subquery (see the stars' above); the page checks the tags themselves on each asset it fetches.
  const tagged = tagsOnEntries(driver) ? [sql`${e}.tag_hashes @> (select cairn_text_hashes(${[...driver.probedTags]}::text[]))`] : [];
  const checks = [...own, ...typed, ...tagged];
  return checks.length === 0 ? sql`true` : sql.join(checks, sql` and `);
}

/**
 * The other tags' postings between `start` and the last of the walk's `cap` entries
 * (`last`), each joined to the walk's entries `e` on the order's key: PostgreSQL merges or
 * hashes the two bounded sets, or probes the other's by key, as its statistics say costs
 * least. Probing always, `sediment,plankton` spent 8 of a page's 22 ms on 6,245 probes.
 */
function tagJoins(driver: OrderDriver, start: WalkStart, last: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql.join(
    driver.probedTags.map((tag, i) => {
      const t = sql.raw(`t${i}`);
      return sql`join (select o.asset_id, o.created_at from asset_tag_order o
          where o.tag = ${tag} and ${afterInOrder(sql`o.created_at`, sql`o.asset_id`, start, true)} and o.created_at >= ${last}) ${t}
        on ${t}.created_at = e.created_at and ${t}.asset_id = e.id`;
    }),
    sql` `,
  );
}

/**
 * The driver's matches after `start`, in the listing's order, at most `cap` of them: a
 * subquery of (id, created_at) read from the index alone. A walk that reads entries
 * (readsEntries) reads at most `cap` of them and gives those that match.
 */
export function driverWalk(driver: OrderDriver, start: WalkStart, cap: number, guard: RawBuilder<unknown> = sql`true`): RawBuilder<unknown> {
  const entries = entriesOf(driver, start, cap, guard);
  if (!readsEntries(driver)) return entries;
  if (driver.probedTags.length === 0 || tagsOnEntries(driver)) return sql`select e.id, e.created_at from (${entries}) e where ${entryCheck(driver)} order by e.created_at desc, e.id`;
  // Where the entries end (the oldest creation time among them), read once from the index alone.
  const last = sql`coalesce((select min(l.created_at) from (${entries}) l), '-infinity'::timestamptz)`;
  return sql`select e.id, e.created_at from (${entries}) e ${tagJoins(driver, start, last)} where ${entryCheck(driver)} order by e.created_at desc, e.id`;
}

/**
 * Where a walk of `cap` stopped: the last row it read (a match, or an entry for a walk
 * that reads entries), when it read all it may; none when the driver's rows ended within it.
 */
export function driverStop(driver: OrderDriver, start: WalkStart, cap: number, guard: RawBuilder<unknown> = sql`true`): RawBuilder<unknown> {
  return sql`select d.id, d.created_at from (${entriesOf(driver, start, cap, guard)}) d order by d.created_at desc, d.id offset ${unplanned(cap - 1, 'integer')} limit 1`;
}
