import { sql, type RawBuilder } from 'kysely';
import type { ReadDb } from '../schema.ts';
import { starsCounted, viewerFacts, type ViewerFacts } from './asset-json.ts';
import { assetJsonOf, documentViewer, type DocumentViewer } from './asset-document.ts';
import type { AssetViewer } from './assets.read.ts';
import { isWideWindow, orderSpan, orderWindows, windowBound, type OrderWindows } from './order-windows.ts';
import { rarestTagFirst, withExpectedShare } from './driver-choice.ts';
import type { OrderDriver } from './order-drivers.ts';
import { gathersByValue, nextWalk, orderWalk, partWalk, rangeGatherMost, standsInForDriver, walkCapOf, walkSizes, walksOnWhenShort, windowAfterWalk } from './walk-sizes.ts';
import { gatherOverflowPhase, inOrder, pageStatement, positionOf, runPage, stopPhase, type PageRow } from './page-statements.ts';
import { withRangeDriver } from './range-driver.ts';

/**
 * Where a page ends, in the listing's order (-is_starred, -created_at, id): the caller's
 * starred assets come first (`starred`), then the rest. `createdAt` keeps microseconds.
 */
export type PagePosition = { readonly phase: 'starred' | 'rest'; readonly createdAt: string; readonly id: string };

/**
 * Conditions on the asset row `a`. `where` runs inside the index-served scan; `residual`
 * (the query's post-filter) is only evaluated on the rows the scan returns, at most
 * `scanCap` of them per page. Both may use `me.p`, the caller's principals.
 */
export type AssetConditions = {
  readonly where: readonly RawBuilder<unknown>[];
  readonly residual?: RawBuilder<unknown> | undefined;
  /** One of the `where` conditions whose matches an index holds in the listing's order (order-drivers.ts). */
  readonly driver?: OrderDriver | undefined;
  /** The same conditions driven by a range on a metadata number, the range moved from `residual` to `where` (range-driver.ts chooses). */
  readonly range?: { readonly driver: OrderDriver; readonly where: readonly RawBuilder<unknown>[]; readonly residual: RawBuilder<unknown> | undefined } | undefined;
};

export type PageRequest = {
  readonly viewer: AssetViewer;
  readonly conditions: AssetConditions;
  readonly after: PagePosition | null;
  readonly limit: number;
  /** Projects whose geographic restriction denies this request: their assets are left out. */
  readonly deniedProjects: readonly string[];
  readonly scanCap: number;
  /** The caller's facts, when read already (viewerFacts). */
  readonly facts?: ViewerFacts | undefined;
  /** About how many assets of the order a filtered page's first window spans (`windowedPart`); `defaultWindowRows` when not given. */
  readonly windowRows?: number | undefined;
  /** At most how many of a driver's matches a page walks before it reads by windows (CAIRN_LISTING_WALK_ROWS); `defaultWalkRows` when not given, no walk at 0. */
  readonly walkRows?: number | undefined;
  /** The fewest assets of the order a window spans to be read by the filter's own index (isWideWindow); `defaultWideWindowRows` when not given. */
  readonly wideWindowRows?: number | undefined;
  /** At most how many numbers in range a range's gather reads (gathersByValue); `rangeGatherMost` when not given. */
  readonly gatherRows?: number | undefined;
};

export type AssetPage = {
  /** The page as a JSON array, built by PostgreSQL. */
  readonly json: string;
  readonly count: number;
  readonly hasMore: boolean;
  readonly next: PagePosition | null;
  /** Set when a residual condition was checked row by row. */
  readonly postFiltered: boolean;
  /** Set when that check stopped at the scan cap: `scanned` rows were examined. */
  readonly capHit: boolean;
  readonly scanned: number;
};

/**
 * Runs one page's statements. A filtered page reads the order window by window
 * (`windowedPart`, or `drivenPart` along a driver); the statements below serve it only while `assets` has no statistics
 * yet (a table never analyzed). Unfiltered, a system administrator sees everything, so the ordered walk
 * is always right. Anyone else may see most assets or almost none, and PostgreSQL cannot
 * know which when it plans (the principals are computed in the statement): the walk is
 * tried first, examining a bounded number of rows, which serves callers who see many; when
 * it comes back short, the statement runs again unbounded — without the order's index
 * when nothing else narrows the rows (the GIN index of readers then finds the few visible
 * ones), or as planned when a filter can.
 */
async function pageRows(db: ReadDb, request: PageRequest, facts: ViewerFacts, take: number): Promise<PageRow[]> {
  if (request.conditions.where.length > 0 || request.conditions.residual !== undefined) {
    const windows = await orderWindows(db);
    const driver = await withExpectedShare(db, await rarestTagFirst(db, request.conditions.driver));
    if (windows) {
      // Without a driver, the order (or the caller's stars) is walked first; with no walk at all (CAIRN_LISTING_WALK_ROWS=0), the windows alone read the page.
      const along = driver ?? orderWalk;
      if (request.walkRows === 0) return partsInOrder(request.after, take, (part, after, need) => windowedPart(db, request, facts, need, windows, part, after));
      // A caller with few stars: their starred matches and the rest's first walk in one statement.
      const fromStarred = (request.after?.phase ?? 'starred') === 'starred';
      if (fromStarred && (await fewStars(db, request.viewer.userId, starsAtOnce(request.windowRows ?? defaultWindowRows), facts))) {
        return inOrder(await drivenPart(db, request, facts, take, windows, 'rest', request.after, along, { starredFirst: true }));
      }
      return partsInOrder(request.after, take, (part, after, need) => drivenPart(db, request, facts, need, windows, part, after, along));
    }
  }
  if (request.viewer.isSystemAdmin) return inOrder(await runPage(db, (known) => pageStatement(request, facts, take, { kind: 'planned' }, known), facts, true));
  // The statement reads a page of the next common size, written in its text (pageStatement): at most seven texts per variant, whatever sizes clients ask for.
  const size = walkedPageSize(take);
  const walkCap = Math.max(Math.min(20 * size, 5_000), 1_000);
  const rows = await runPage(db, (known) => pageStatement(request, facts, size, { kind: 'walk', walkCap }, known), facts, false);
  const walked = inOrder(rows.filter((row) => row.phase !== stopPhase));
  if (walked.length >= take) return walked.slice(0, take);
  // Short because the order ended within the walk (the last page: no row says the walk went on): the walk saw everything.
  if (!rows.some((row) => row.phase === stopPhase)) return walked;
  const filtered = request.conditions.where.length > 0;
  return inOrder(await runPage(db, (known) => pageStatement(request, facts, take, filtered ? { kind: 'planned' } : { kind: 'bitmap' }, known), facts, false));
}

/** The rows an unfiltered walk's statement reads for a page of `take`: the common page sizes (10, 25, 50, 100, 200, 500, 1000) and the row that says more follow. */
const walkedPageSizes = [11, 26, 51, 101, 201, 501, 1001] as const;
export const walkedPageSize = (take: number): number => walkedPageSizes.find((size) => size >= take) ?? take;

/** Past every id: a position just below a creation time. */
const lastId = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/** About how many assets of the order a filtered page's first window spans (CAIRN_LISTING_WINDOW_ROWS). */
export const defaultWindowRows = 5_000;

/** Whether the caller has starred fewer than `bound` assets (an index walk of at most `bound` entries, or the count its facts hold). */
async function fewStars(db: ReadDb, userId: string, bound: number, facts: ViewerFacts): Promise<boolean> {
  if (bound < 1) return false;
  if (facts.stars !== undefined && bound <= starsCounted) return facts.stars < bound;
  const { rows } = await sql<{ n: number }>`select count(*)::integer as n from (select 1 from asset_stars where user_id = ${userId}::uuid limit ${bound}) s`.execute(db);
  return (rows[0]?.n ?? 0) < bound;
}

/** A page's rows part by part: the starred part from `after` (when the page starts in it), then the rest. */
async function partsInOrder(after: PagePosition | null, take: number, readPart: (part: PagePosition['phase'], after: PagePosition | null, need: number) => Promise<PageRow[]>): Promise<PageRow[]> {
  const rows = await readPart(after?.phase ?? 'starred', after, take);
  if (rows.length >= take || after?.phase === 'rest') return rows;
  return [...rows, ...(await readPart('rest', null, take - rows.length))];
}

/**
 * One part of a filtered page, window by window of the listing's order (order-windows.ts):
 * each statement gathers the part's matches created at or after its window's bound
 * (through whichever index serves them best: the filter's, the order's range, the caller's
 * stars) and sorts them. It never walks the order hoping to meet matches early, which
 * costs a whole table when they are rare, and never gathers more than a window holds, which
 * costs a whole table when they are many. A window that comes back short was read whole:
 * the next starts below its bound, sized from the matches it held (twice what the page
 * still needs), and the last reaches the end of the order. The first spans `firstWindow`
 * assets of the order when given (a walk's yield sized it: windowAfterWalk), else
 * CAIRN_LISTING_WINDOW_ROWS.
 */
async function windowedPart(db: ReadDb, request: PageRequest, facts: ViewerFacts, take: number, windows: OrderWindows, part: PagePosition['phase'], from: PagePosition | null, firstWindow?: number): Promise<PageRow[]> {
  const firstSpan = request.windowRows ?? defaultWindowRows;
  const rows: PageRow[] = [];
  let after = from;
  // A caller with few stars (under 2,000, or half a smaller window) has few to check: all
  // of them in one statement, whatever the filter.
  const few = part === 'starred' && (await fewStars(db, request.viewer.userId, starsAtOnce(firstSpan), facts));
  let span = few ? Number.MAX_SAFE_INTEGER : (firstWindow ?? firstSpan);
  for (;;) {
    const bound = windowBound(windows, after?.createdAt ?? null, span);
    const byFilterIndex = findsMatchesAlone(request.conditions.driver) && isWideWindow(windows, after?.createdAt ?? null, bound, request.wideWindowRows);
    const got = await runPage(db, (known) => pageStatement({ ...request, after }, facts, take - rows.length, { kind: 'window', part, bound, fewStars: few, byFilterIndex }, known), facts, request.viewer.isSystemAdmin);
    rows.push(...got);
    if (rows.length >= take || bound === null) return rows;
    // Everything of this part at or above the bound was read: go on just below it.
    span = got.length === 0 ? Number.MAX_SAFE_INTEGER : (2 * (take - rows.length) * span) / got.length;
    after = { phase: part, createdAt: bound, id: lastId };
  }
}

/**
 * Whether a wide window finds the filter's matches through the filter's own index of
 * `assets`, its bounds hidden from the order's (isWideWindow): a tag's, a metadata value's,
 * a collection's (GIN indexes), a title prefix's (the lowercased title's B-tree) and `q`'s
 * of three characters or more (the trigram indexes; a shorter one has no trigram to look
 * up). Not an owner's or a record type's, whose own indexes hold the order already, nor a
 * range's, which walks on instead of reading windows (walksOnWhenShort).
 */
function findsMatchesAlone(driver: OrderDriver | undefined): boolean {
  switch (driver?.primary.kind) {
    case 'tag':
    case 'metadata':
    case 'collection':
    case 'title_prefix':
      return true;
    case 'q':
      return [...driver.primary.value].length >= 3;
    default:
      return false;
  }
}

const starsAtOnce = (firstSpan: number) => Math.min(2_000, Math.floor(firstSpan / 2));

/** At most how many of a driver's matches one statement walks (CAIRN_LISTING_WALK_ROWS). */
export const defaultWalkRows = 5_000;

/**
 * Whether a walk that came back short with `got` of the `need` rows it was after walks on
 * along its driver rather than hand the rest to the windows: when it found at least half
 * of them, so that about one more walk at the same yield fills the page. The windows
 * gather the matches through bitmaps, and for a caller with many stars (the starred part
 * of a filter that one match in ten holds) ANDed 230,000 entries of an order's index into
 * the filter's to find the 33 rows a walk of 12 ms more would have met (docs/benchmarks.md,
 * eighth sitting). A walk that found fewer hands over, as the matches it meets are rare.
 */
const walkYieldsEnough = (got: number, need: number) => got > 0 && 2 * got >= need;

/**
 * How a part's walk goes on (drivenPart): at most `cap` entries, along `walked` (else the
 * part's walk of its driver), the caller's few starred matches first (`starredFirst`), and
 * whether a range may still gather its matches by value (`gathers`: not once a gather found
 * more numbers in range than it may read).
 */
type WalkOn = { readonly cap?: number | undefined; readonly walked?: OrderDriver | undefined; readonly starredFirst?: boolean; readonly gathers?: boolean };

/**
 * One part of a filtered page along its driver (order-drivers.ts; the order itself, or
 * the caller's stars, when no filter has one): a walk of the driver's matches from the
 * cursor, bounded, which serves a caller who sees many of them in a few milliseconds. A
 * walk that came back short, but stopped before the driver's matches ended (the caller
 * sees few of them), leaves the part's remainder to the windows, or walks on when the
 * windows have no index for the driver (walksOnWhenShort) or the walk met enough matches
 * to fill the page soon (walkYieldsEnough; for a walk sized by its yield, walkSizes, when
 * that yield fills the page within its bound, `cap` the entries it then reads).
 * Never the starred part of a caller with few stars: pageRows reads those whole, first in
 * the rest's first walk (`starredFirst`).
 */
async function drivenPart(
  db: ReadDb,
  request: PageRequest,
  facts: ViewerFacts,
  take: number,
  windows: OrderWindows,
  part: PagePosition['phase'],
  after: PagePosition | null,
  driver: OrderDriver,
  { cap, walked, starredFirst = false, gathers = true }: WalkOn = {},
): Promise<PageRow[]> {
  const walkRows = request.walkRows ?? defaultWalkRows;
  // What this part walks: the caller's stars, for the starred part of `q`, a record type, tags or of no driver (partWalk); `walked` when a walk goes on.
  const along = walked ?? partWalk(driver, part, request.viewer.userId);
  const sizes = walkSizes(along, take, walkRows);
  const walkCap = sizes ? (cap ?? sizes.first) : walkCapOf(along, take, walkRows);
  const rows = await runPage(db, (known) => pageStatement({ ...request, after }, facts, take, { kind: 'driven', part, driver: along, walkCap, starredFirst }, known), facts, request.viewer.isSystemAdmin);
  const got = rows.filter((row) => row.phase !== stopPhase);
  if (got.length >= take) return got;
  const stop = rows.find((row) => row.phase === stopPhase);
  if (!stop) return got;
  const from: PagePosition = { phase: part, createdAt: stop.created_at, id: stop.id };
  const need = take - got.length;
  // What the walk itself met: the caller's few stars, read first in the same statement, are not its yield.
  const met = starredFirst ? got.filter((row) => row.phase === 1).length : got.length;
  if (sizes) {
    const next = nextWalk(walkCap, met, need, sizes.most);
    if (gathers && gathersByValue(along, next, request.gatherRows)) {
      const gathered = await gatheredPart(db, request, facts, need, part, from, along);
      // The range holds more numbers than a gather may read: the walk goes on as far as it may, and gathers no more.
      return [...got, ...(gathered ?? (await drivenPart(db, request, facts, need, windows, part, from, driver, { cap: sizes.most, walked: along, gathers: false })))];
    }
    if (next !== undefined) return [...got, ...(await drivenPart(db, request, facts, need, windows, part, from, driver, { cap: next, walked: along, gathers }))];
    // A range that gathers no more walks on as far as it may: no window serves it (walksOnWhenShort).
    if (walksOnWhenShort(along)) return [...got, ...(await drivenPart(db, request, facts, need, windows, part, from, driver, { cap: sizes.most, walked: along, gathers }))];
    // Stars that yield too little for the filter they stand in for: the filter's own walk takes the rest.
    if (standsInForDriver(along)) return [...got, ...(await drivenPart(db, request, facts, need, windows, part, from, driver, { walked: driver }))];
  } else if (walkYieldsEnough(met, take - (got.length - met))) return [...got, ...(await drivenPart(db, request, facts, need, windows, part, from, driver, { walked: along }))];
  const sized = windowAfterWalk(along, walkCap, met, need, orderSpan(windows, after?.phase === part ? after.createdAt : null, stop.created_at));
  const firstWindow = sized === undefined ? undefined : Math.max(sized, request.windowRows ?? defaultWindowRows);
  return [...got, ...(await windowedPart(db, request, facts, need, windows, part, from, firstWindow))];
}

/**
 * One part of a page from a range's matches after `after`, gathered by value and sorted
 * (gatheredStatement): the part's rows, from all the numbers the range holds; none when it
 * holds more than a gather may read (undefined: the caller walks on).
 */
async function gatheredPart(db: ReadDb, request: PageRequest, facts: ViewerFacts, take: number, part: PagePosition['phase'], after: PagePosition, driver: OrderDriver): Promise<PageRow[] | undefined> {
  const rows = await runPage(db, (known) => pageStatement({ ...request, after }, facts, take, { kind: 'gathered', part, driver, most: request.gatherRows ?? rangeGatherMost }, known), facts, request.viewer.isSystemAdmin);
  return rows.some((row) => row.phase === gatherOverflowPhase) ? undefined : rows;
}

/** The page's rows as a JSON array: each stored document with the caller's parts; a starred row comes from the starred part. */
const jsonOf = (rows: readonly PageRow[], viewer: DocumentViewer) => `[${rows.map((r) => assetJsonOf(r, r.phase === 0, viewer, r.collections)).join(',')}]`;

/**
 * A page of the asset listing or query. Without a residual condition: `limit + 1` rows.
 * With one: chunks of the scan, each row's residual computed by PostgreSQL, until the
 * page is full or `scanCap` rows were examined; then the page may be short (even empty)
 * and `next` resumes after the last row examined.
 */
export async function assetPage(db: ReadDb, given: PageRequest): Promise<AssetPage> {
  const request = given.conditions.range ? { ...given, conditions: withRangeDriver(given.conditions) } : given;
  const { limit } = request;
  // Read once per page, also when the post-filter scans in several chunks.
  const facts = request.facts ?? (await viewerFacts(db, request.viewer.userId));
  const viewer = documentViewer(facts.p, request.viewer.isSystemAdmin);
  const pageJson = (rows: readonly PageRow[]) => jsonOf(rows, viewer);
  if (!request.conditions.residual) {
    const ordered = await pageRows(db, request, facts, limit + 1);
    const page = ordered.slice(0, limit);
    const hasMore = ordered.length > limit;
    return { json: pageJson(page), count: page.length, hasMore, next: hasMore ? positionOf(page[page.length - 1] as PageRow) : null, postFiltered: false, capHit: false, scanned: page.length };
  }
  const hits: PageRow[] = [];
  let scanned = 0;
  let after = request.after;
  let chunk = Math.max(limit + 1, 200);
  for (;;) {
    const take = Math.min(chunk, request.scanCap - scanned);
    const ordered = await pageRows(db, { ...request, after }, facts, take);
    for (const row of ordered) {
      scanned += 1;
      after = positionOf(row);
      if (row.hit) hits.push(row);
      if (hits.length > limit) {
        const page = hits.slice(0, limit);
        return { json: pageJson(page), count: limit, hasMore: true, next: positionOf(page[limit - 1] as PageRow), postFiltered: true, capHit: false, scanned };
      }
    }
    const exhausted = ordered.length < take;
    if (exhausted || scanned >= request.scanCap) {
      const capHit = !exhausted;
      return { json: pageJson(hits), count: hits.length, hasMore: capHit, next: capHit ? after : null, postFiltered: true, capHit, scanned };
    }
    chunk *= 2;
  }
}
