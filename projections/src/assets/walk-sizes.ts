import { checksStars, readsEntries, tagsOnEntries, typedWalk, type OrderDriver } from './order-drivers.ts';

/*
 * How far a page's part walks along its driver (order-drivers.ts): what it walks (the
 * order, the stars), how many entries its first walk reads, whether and how far a walk that
 * came back short goes on, and how wide the window that takes over from it is.
 */

/**
 * Whether a walk that came back short goes on along its driver rather than hand the rest
 * to the windows of the order. A range does: nothing on the assets serves it, so the
 * windows would examine every asset below the stop, where the walk fetches only those in
 * range (a rare range over 300,000 assets: about 1 s a page instead of 0.1 s; for a caller
 * with many stars, the starred part's windows fetched 13,515 starred assets to find 85).
 * A range drives only beside the condition it was judged rarer than (range-driver.ts).
 */
export const walksOnWhenShort = (driver: OrderDriver) => driver.primary.kind === 'metadata_range';

/**
 * How many entries a walk along this driver reads for a page's walk of `walkCap` matches.
 * A walk that checks its entries reads entries that may not match; checking one costs a
 * fraction of what fetching an asset does (a text about 0.3 µs, a tag's probe about 3 µs),
 * so it reads four times as many. A number is compared on the entry itself (0.1 µs at
 * 1,000,000 assets, docs/benchmarks.md): fifty times as many, so that a range holding 2 %
 * of the path's numbers fills its walk. So is a text on a star's entry: the windows that
 * would take over the starred part of `q` cost 15–40 ms for a caller with 100,000 stars,
 * which a walk of all of them (0.2 µs a star) stays under. A record type on a tag's or
 * metadata value's entries (migration 0042) is compared there too, and so are other tags,
 * hashed (0048, 0049): twenty times as many, so that a type or a tag one asset in twenty
 * has fills the walk (four for an owner's or a collection's walk beside tags, whose postings
 * are joined to the entries, which bounds them by the oldest of all the entries read).
 * `q`'s text on the order's entries too, since it is checked with `strpos` (about 0.15 µs
 * an entry with the index read): thirty-two times as many, so that a caller who sees a
 * third of the assets walks on to a text one title in a hundred holds rather than hand
 * over to windows whose trigram bitmaps and range of the order cost 6–7 ms (the mix's
 * `q` first pages for six such callers: 1.9 s in all against 1.2–1.3 s, eleventh sitting).
 */
export const walkEntries = (driver: OrderDriver, walkCap: number) => {
  if (driver.primary.kind === 'metadata_range' || driver.primary.kind === 'stars') return 50 * walkCap;
  // Tags checked on a metadata value's or a tag's entries (migrations 0048, 0049) are checked as a record type is there, not joined.
  if (tagsOnEntries(driver)) return 20 * walkCap;
  const joinsTags = driver.probedTags.length > 0;
  if (driver.primary.kind === 'q' && !joinsTags) return 32 * walkCap;
  if (typedWalk(driver)) return 20 * walkCap;
  return readsEntries(driver) ? 4 * walkCap : walkCap;
};

/**
 * What a page whose filters have no driver walks first: the order itself, or in its starred
 * part the caller's stars, every asset fetched and checked. A common filter (a metadata
 * key half the assets hold) then fills a page from a few hundred assets, where the windows
 * gathered the key's 470,000 index entries into a bitmap (110 ms, docs/benchmarks.md);
 * a rare one leaves the part to the windows after a short walk (walkSizes).
 */
export const orderWalk: OrderDriver = { primary: { kind: 'order' }, probedTags: [] };

/**
 * The walk of a part of the page along `driver`: in the starred part, a walk of the order
 * reads the caller's stars, and so does `q`'s, with the text on each star's entry: the
 * stars are a tenth of the order for a caller with 100,000, so the walk reads a tenth of
 * the entries, and probes no star (docs/assets.md).
 */
export function partWalk(driver: OrderDriver, part: 'starred' | 'rest', userId: string): OrderDriver {
  if (part !== 'starred') return driver;
  if (driver.primary.kind === 'order') return { primary: { kind: 'stars', userId }, probedTags: [] };
  if (driver.primary.kind === 'q') return { primary: { kind: 'stars', userId, q: driver.primary.value }, probedTags: driver.probedTags };
  // A title prefix's: the stars under its first characters, the whole prefix checked on each entry (migration 0047).
  if (driver.primary.kind === 'title_prefix') return { primary: { kind: 'stars', userId, titlePrefix: driver.primary.value }, probedTags: driver.probedTags };
  // A record type's or tags' starred part: the stars, each checked on its entry (migration 0041).
  const share = driver.share === undefined ? {} : { share: driver.share };
  if (driver.primary.kind === 'record_type') return { primary: { kind: 'stars', userId, recordType: driver.primary.value }, probedTags: [], ...share };
  if (driver.primary.kind === 'tag') {
    const [recordType, ...others] = driver.recordTypes ?? [];
    // One record type beside the tags is checked on the stars' entries too; several, on the assets.
    return { primary: { kind: 'stars', userId, tags: [driver.primary.value, ...driver.probedTags], ...(recordType !== undefined && others.length === 0 ? { recordType } : {}) }, probedTags: [], ...share };
  }
  return driver;
}

/**
 * Whether a walk of the stars stands in for a driver's own walk (a record type's, tags', a title prefix's),
 * which then takes over when the stars yield too little. Walking the stars costs what the
 * filter's share among them makes it cost (about 0.15 µs a star: a type that one asset in
 * 25 holds fills a page from 2,500 stars), where the driver's walk probes the stars for
 * each of its matches (2–3 µs each: 1,098 probes for a caller who starred a tenth of the
 * assets, ten times that for one who starred a hundredth). A rare filter leaves the stars
 * after `starsForFilterMost` entries (about 3 ms) to the driver, which meets its matches sooner.
 */
export const standsInForDriver = (along: OrderDriver) =>
  along.primary.kind === 'stars' && (along.primary.recordType !== undefined || along.primary.tags !== undefined || along.primary.titlePrefix !== undefined);

/** The most stars a walk standing in for a driver may read next: a yield that needs more hands the part to the driver. */
export const starsForFilterMost = 20_000;

/** Whether the walk checks nothing on its entries, fetching every asset it reads: the order or the stars. */
const isBareWalk = (driver: OrderDriver) => driver.primary.kind === 'order' || (driver.primary.kind === 'stars' && !checksStars(driver.primary));

/** At most how many entries a walk reads for a page of `take` rows, walking `walkRows` (CAIRN_LISTING_WALK_ROWS) of a driver's matches. */
export const walkCapOf = (driver: OrderDriver, take: number, walkRows: number) => walkEntries(driver, Math.min(Math.max(20 * take, 1_000), walkRows));

/**
 * How a walk whose yield cannot be known before it runs is sized: the entries its first
 * walk reads, and at most how many a walk that came back short may go on to read at the
 * yield it had (nextWalk), beyond which the windows read the rest. None for a walk of
 * matches (a tag's, an owner's): its cap counts matches already.
 *
 * - A walk of the order or the stars (no driver) fetches every asset it reads (7 µs): it
 *   first reads twice what the part needs, so that a filter that half the assets meet
 *   fills the page, and one that none does costs the windows about 200 assets fetched
 *   more; it goes on while 2,000 more assets (about 14 ms) fill the page. A filter's
 *   window gathers the filter's matches through its GIN index, at what the filter holds
 *   in the whole table: a key half the assets hold, for a caller who sees a third of them
 *   (a yield of 15 %), took 48 ms by windows where a walk of 600 more assets takes 4.
 * - A text walk (a title prefix, `q`, `q` along the caller's stars) checks each entry
 *   (about 0.3 µs) and fetches its matches: it first reads ten entries per row needed (at
 *   least 1,000), and goes on within its cap of entries (walkCapOf). A prefix or `q` that one title in
 *   a thousand holds then hands over after 1,000 entries, where it read 8,080 (about 5 ms:
 *   `freshwater crop yiel` met 112 in the key `freshwater`'s). The caller's stars standing
 *   in for a tag or a record type whose share of the assets the statistics know
 *   (withExpectedShare) first read as many as that share needs for the page, a quarter
 *   more, when that is within `most` (a rarer one keeps the short first walk whose yield
 *   hands the part to the filter's own walk): the walk stops once the page is full, so a
 *   commoner filter costs nothing more, and `tags=sediment,plankton` (one asset in 80) or `record_type=notebook`
 *   (one in 20) no longer take two or three statements of ten stars per row each.
 * - A range (a number compared on each entry, about 0.1 µs) first reads fifty entries
 *   per row needed, so that one statement fills the page of a range holding a fiftieth of
 *   the numbers, or a fifth of them in the starred part of a caller who starred a tenth of
 *   the assets (ten per row took two statements for `size > 500` there: 272 pages/s
 *   against 312); one whose yield would have the next walk read more than
 *   `rangeGatherMost` entries gathers its numbers by value instead (gathersByValue).
 */
export function walkSizes(driver: OrderDriver, take: number, walkRows: number): { readonly first: number; readonly most: number } | undefined {
  if (isBareWalk(driver)) return { first: Math.min(Math.max(2 * take, 100), walkRows), most: 2_000 };
  if (driver.primary.kind !== 'q' && driver.primary.kind !== 'title_prefix' && driver.primary.kind !== 'stars' && driver.primary.kind !== 'metadata_range') return undefined;
  const most = standsInForDriver(driver) ? Math.min(starsForFilterMost, walkCapOf(driver, take, walkRows)) : walkCapOf(driver, take, walkRows);
  const perRow = driver.primary.kind === 'metadata_range' ? 50 : 10;
  // Stars standing in for a tag or a record type whose share the statistics know: as many as that share needs, a quarter more,
  // when that is within the bound (a rarer filter's first walk stays short, and its yield hands the part to the filter's own walk).
  const byShare = standsInForDriver(driver) && driver.share !== undefined && driver.share > 0 ? Math.ceil((1.25 * take) / driver.share) : 0;
  return { first: Math.min(Math.max(perRow * take, 1_000, byShare <= most ? byShare : 0), most), most };
}

/**
 * About how many assets of the order the windows that take over from a walk that read
 * `read` entries and met `met` rows need to span for `need` more: twice that at the walk's
 * yield. For a walk of the order itself (`q`, or no driver) its entries are the order's;
 * for a walk of a filter's own entries (a tag's, a metadata value's, an owner's, a
 * collection's, a record type's, a title prefix's key), `spanned` is how much of the order
 * the walk covered, from its start to where it stopped (orderSpan). Each window pays its
 * filter's whole bitmap again (`q`'s trigrams: 2.5 ms at 1,000,000 assets), so one window
 * sized from the yield does what two or three of the default size did; a title prefix
 * rare within its key (`preliminary photog`, 272 of `preliminar`'s 25,069 titles) read a
 * window of 5,000 assets first (4.4 ms for two matches) before the one its yield called
 * for. None for a walk of the caller's stars, whose entries are not the order's.
 */
export function windowAfterWalk(driver: OrderDriver, read: number, met: number, need: number, spanned?: number): number | undefined {
  if (driver.primary.kind === 'stars') return undefined;
  const covered = driver.primary.kind === 'q' || driver.primary.kind === 'order' ? read : spanned;
  return covered === undefined ? undefined : Math.ceil((2 * need * covered) / Math.max(met, 1));
}

/** At most how many numbers in range a gather reads, wherever they stand in the listing's order (gathersByValue, rangeGather). */
export const rangeGatherMost = 10_000;

/**
 * Whether a part walked along a range that came back short gathers the range's numbers by
 * value (rangeGather) rather than walk on: when the walk's yield says a walk to fill the
 * page would read more than `most` entries (`next`, nextWalk's size; none when it would
 * read more than the walk's cap). The gather reads at most `most + 1` numbers in range,
 * wherever they stand, and sorts those after the stop: a range holding more costs that
 * many entries before the walk goes on (and gathers no more), one holding fewer costs
 * what it holds, where the walk reads fifty of the path's numbers per match for a range
 * holding 2 % of them.
 */
export const gathersByValue = (driver: OrderDriver, next: number | undefined, most = rangeGatherMost) => driver.primary.kind === 'metadata_range' && (next === undefined || next > most);

/**
 * How many entries a walk reads next after one that read `read` entries and met `met` of
 * them, for `need` more rows: what that yield needs and a quarter more; none when that is
 * more than `most` (the windows then read the rest).
 */
export function nextWalk(read: number, met: number, need: number, most: number): number | undefined {
  if (met === 0) return undefined;
  const expected = (need * read) / met;
  return expected > most ? undefined : Math.min(Math.ceil(1.25 * expected) + 10, most);
}
