import { sql, type RawBuilder } from 'kysely';
import type { ReadDb } from '../schema.ts';
import { keptPlan, preparedStatement } from '../prepared-statements.ts';
import { viewerCteOf, visibleToMe, type ViewerFacts } from './asset-json.ts';
import { afterInOrder, unplanned } from '../keyset.ts';
import { pageDocumentColumnsSql, noDocumentColumnsSql, type DocumentColumns } from './asset-document.ts';
import type { HeldCollections } from './held-collections.ts';
import { heldRowsRead, heldRowsSql, readPageWithCollections, takeHeldRow } from './page-collections.ts';
import { collectionGuard, driverStop, driverWalk, rangeGather, starEntryCheck, type OrderDriver } from './order-drivers.ts';
import { partWalk } from './walk-sizes.ts';
import type { PagePosition, PageRequest } from './asset-page.ts';
import { keptFactsCte, keptFactsRow, staleFactsOf, staleFactsPhase } from './kept-facts.ts';

/*
 * The statements of one part of an asset page (asset-page.ts decides which run, in what
 * order): each returns the part's rows in the listing's order, then the collections they
 * name, read in the same snapshot.
 */

export type PageRow = DocumentColumns & {
  phase: number;
  created_at: string;
  id: string;
  hit: boolean;
  /** The collections the row's statement names, read in its snapshot (set by runPage, not a column). */
  collections?: HeldCollections;
};

/** The phase of a page statement's row that is one of the collections its rows name (heldRowsSql). */
const heldPhase = 3;

/** The phase of a page statement's row that carries the version of the collections' facts it read (heldRowsSql). */
const factsVersionPhase = 6;

/** The collections' rows of a page statement, and its version's row, in a page statement's columns. */
const heldRows = (known: string | null) =>
  heldRowsSql(known, {
    held: sql`${heldPhase} as phase, null as created_at, k.id, false as hit`,
    version: sql`${factsVersionPhase} as phase, null as created_at, null as id, false as hit`,
  });

/** A page statement, given the version of the collections' facts its process kept (null: none). */
export type PageStatementFor = (known: string | null) => RawBuilder<PageRow>;

/**
 * Runs a page statement: its page's rows, each with the collections the statement read for
 * them, or kept from an earlier statement that read the same version of them
 * (page-collections.ts). Throws StaleViewerFacts when the statement found that the caller's
 * kept facts no longer hold (kept-facts.ts): its rows were read with the wrong principals.
 */
export async function runPage(db: ReadDb, statementFor: PageStatementFor, facts: ViewerFacts, isSystemAdmin: boolean): Promise<PageRow[]> {
  const { page, collections } = await readPageWithCollections(db, facts.p, isSystemAdmin, async (known) => {
    const { rows } = await statementFor(known).execute(db);
    const held = heldRowsRead();
    const page: PageRow[] = [];
    for (const row of rows) {
      if (row.phase === staleFactsPhase) throw staleFactsOf(row);
      if (row.phase === heldPhase) takeHeldRow(held, row);
      else if (row.phase === factsVersionPhase) held.version = row.readers;
      else page.push(row);
    }
    return { page, held };
  });
  for (const row of page) row.collections = collections;
  return page;
}

const and = (conditions: readonly RawBuilder<unknown>[]) => (conditions.length === 0 ? sql`true` : sql.join(conditions, sql` and `));
const microTime = (column: string) => sql.raw(`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`);

/**
 * How the part of the page that is not starred finds its rows (see `assetPage`):
 * `walk` follows `assets_order` but examines at most `walkCap` rows, `bitmap` may not use
 * that order (so PostgreSQL gathers the visible rows through the GIN indexes and sorts
 * them), `planned` leaves the choice to the planner, and `window` too, but only among the
 * rows created at or after `bound` (see `windowedPart`).
 */
export type Strategy =
  | { readonly kind: 'walk'; readonly walkCap: number }
  | { readonly kind: 'bitmap' }
  | { readonly kind: 'planned' }
  | {
      readonly kind: 'window';
      readonly part: PagePosition['phase'];
      readonly bound: string | null;
      readonly fewStars?: boolean;
      /** A wide window (isWideWindow) of a filter with an index of its own: its bounds hidden from the order's index, so that the filter's index alone finds the rows. */
      readonly byFilterIndex?: boolean;
    }
  | {
      readonly kind: 'driven';
      readonly part: PagePosition['phase'];
      readonly driver: OrderDriver;
      readonly walkCap: number;
      /** With the rest part: the caller's starred matches first, all of its few stars read in the same statement (asset-page.ts, `fewStars`). */
      readonly starredFirst?: boolean;
    }
  | {
      readonly kind: 'gathered';
      readonly part: PagePosition['phase'];
      /** A range on a metadata number (rangeGather): its matches after the cursor gathered by value, at most `most` of them. */
      readonly driver: OrderDriver;
      readonly most: number;
    };

/**
 * One statement for up to `take` rows of the order after `after`: the caller's starred
 * assets (see `starredSource`), then the others, skipping
 * the starred ones by the stars' primary key. `union all` under a limit runs its second
 * branch only when the first ran out. Visibility is the overlap of the asset's readers with
 * the caller's principals.
 */
export function pageStatement(request: PageRequest, facts: ViewerFacts, take: number, strategy: Strategy, known: string | null = null) {
  const { viewer, conditions, after } = request;
  const user = sql`${viewer.userId}::uuid`;
  const filtered = conditions.where.length > 0 || conditions.residual !== undefined;
  // Only the unbounded unfiltered statement gathers the visible assets through the indexes; every other one checks the rows it walks.
  const visible = visibleToMe(viewer.isSystemAdmin, !filtered && strategy.kind !== 'walk' ? 'indexed' : 'probed');
  const notDenied = request.deniedProjects.length === 0 ? sql`true` : sql`not (a.owner_type = 'project' and a.owner_id = any(${[...request.deniedProjects]}::uuid[]))`;
  const filters = and([visible, notDenied, ...conditions.where]);
  const hit = conditions.residual ?? sql`true`;
  const columns = pageDocumentColumnsSql(hit);

  // A statement whose plan is kept (an unfiltered walk, a driven walk) holds its cursor
  // `unplanned`, so that PostgreSQL settles on its generic plan (keyset.ts). The unfiltered
  // walk's page size and bound are written in its text (its caller rounds the size up to a
  // common one, walkedPageSize, so the texts stay few whatever sizes clients ask for):
  // hidden, the size of its starred part's fenced walk of the stars was guessed at a tenth
  // of them, and a caller with 100,000 stars had them all read and sorted (107 ms). A
  // driven part's size is any remainder of a page, so it is unplanned too: each of its
  // walks has its own bound, and its starred part walks few stars.
  const kept = (!filtered && strategy.kind === 'walk') || strategy.kind === 'driven';
  if (!Number.isSafeInteger(take) || take < 1) throw new Error(`a page's size must be a positive integer, not ${take}`);
  const pageLimit = !filtered && strategy.kind === 'walk' ? sql.lit(take) : strategy.kind === 'driven' ? unplanned(take, 'integer') : sql`${take}`;
  const starredAfter = after?.phase === 'rest' ? sql`false` : afterInOrder(sql`s.asset_created_at`, sql`s.asset_id`, after, kept);
  // The asset's creation time as the window's bounds compare it: an expression no index holds, in a window read by the filter's index alone.
  const createdAt = strategy.kind === 'window' && strategy.byFilterIndex === true ? sql`(a.created_at + interval '0 seconds')` : sql`a.created_at`;
  const restAfter = afterInOrder(createdAt, sql`a.id`, after?.phase === 'rest' ? after : null, kept);

  // Unfiltered, the caller's stars are walked in order and each asset fetched (the `offset
  // 0` fences keep PostgreSQL from starting at the assets, which it would, not knowing how
  // many the caller sees). Filtered, the filter's index finds the candidates and the stars'
  // key tells which are starred: a caller's stars can be many, the filter's matches few.
  // A caller with few stars (windowedPart) has them walked too, filtered or not: PostgreSQL,
  // which cannot estimate a metadata or tag filter's matches, would otherwise gather every
  // match (10,000 assets fetched for a caller's 119 stars: 57 ms instead of a fraction of one).
  const walkStars = !filtered || (strategy.kind === 'window' && strategy.fewStars === true) || (strategy.kind === 'driven' && strategy.starredFirst === true);
  // What the stars hold of their assets (their text, record type and tags: migrations 0040,
  // 0041) is checked on each star's entry first, so that only candidates are fetched.
  const starsChecked = walkStars && filtered && request.conditions.driver ? starEntryCheck(partWalk(request.conditions.driver, 'starred', viewer.userId)) : undefined;
  const starredSource = walkStars
    ? sql`(select s.asset_id, s.asset_created_at from asset_stars s where s.user_id = ${user} and ${starredAfter}${starsChecked ? sql` and ${starsChecked}` : sql``}
          order by s.asset_created_at desc, s.asset_id offset 0) s
         cross join lateral (select a.* from assets a where a.id = s.asset_id offset 0) a`
    : sql`assets a join asset_stars s on s.user_id = ${user} and s.asset_id = a.id and ${starredAfter}`;
  // Filtered, the starred part may not follow the stars' index: PostgreSQL would walk a
  // caller's stars (there may be 100,000) hoping to meet the filter's rows early. Gathering
  // the starred matches and sorting them costs what the smaller of the two sets costs.
  const starredOrder = filtered ? sql`s.asset_created_at + interval '0 seconds' desc` : sql`s.asset_created_at desc`;
  // `walk` bounds the rows examined; `bitmap` hides the order from the index (an
  // expression PostgreSQL cannot match to `assets_order`).
  const restSource =
    strategy.kind === 'walk'
      ? sql`(select a.* from assets a where ${restAfter} order by a.created_at desc, a.id limit ${sql.lit(strategy.walkCap)}) a`
      : sql`assets a`;
  // In a window too: PostgreSQL gathers the window's matches (through whichever index
  // serves them best) and sorts them, rather than walk the order hoping to meet them early.
  const restOrder = strategy.kind === 'bitmap' || strategy.kind === 'window' ? sql`a.created_at + interval '0 seconds' desc` : sql`a.created_at desc`;
  const bound = strategy.kind === 'window' ? strategy.bound : null;
  // The same bounds on the asset's own creation time (a star keeps it): the filter's bitmap
  // is then cut to the window by the order's index, instead of fetching every match; in a
  // wide window (byFilterIndex) every match is fetched instead, the bounds checked on each.
  const starredWindow = bound !== null ? sql`s.asset_created_at >= ${bound}::timestamptz and ${createdAt} >= ${bound}::timestamptz` : sql`true`;
  const starredFrom = filtered && after?.phase === 'starred' ? sql`${createdAt} <= ${kept ? unplanned(after.createdAt, 'timestamptz') : sql`${after.createdAt}::timestamptz`}` : sql`true`;
  const restWindow = bound !== null ? sql`${createdAt} >= ${bound}::timestamptz` : sql`true`;

  // A walk leaves out the caller's stars as a driven walk does (notStarred); a window
  // gathers its matches and may anti-join them.
  const notStarred = strategy.kind === 'walk' ? notStarredBy(facts, user, sql`a.id`) : sql`not exists (select 1 from asset_stars s where s.user_id = ${user} and s.asset_id = a.id)`;
  const starred = sql`select 0 as phase, ${microTime('a.created_at')} as created_at, a.id, (${hit}) is true as hit, ${columns}
       from me, ${starredSource}
       where ${starredWindow} and ${starredFrom} and ${filters}
       order by ${starredOrder}, s.asset_id
       limit ${pageLimit}`;
  if (strategy.kind === 'gathered') return gatheredStatement(request, facts, take, strategy, { user, filters, hit, columns, known });
  if (strategy.kind === 'driven') return drivenStatement(request, facts, take, strategy, { user, filters, hit, columns, known }, strategy.starredFirst === true ? starred : undefined);
  const rest = sql`select 1 as phase, ${microTime('a.created_at')} as created_at, a.id, (${hit}) is true as hit, ${columns}
       from me, ${restSource}
       where ${restAfter} and ${restWindow} and ${filters}
         and ${notStarred}
       order by ${restOrder}, a.id
       limit ${pageLimit}`;
  // The starred part of a caller with few stars, read whole: its plan is fixed by its shape
  // (the caller's stars walked, each asset fetched by key), so it is kept like a driven walk's.
  const fixedPlan = strategy.kind === 'window' && strategy.part === 'starred' && strategy.fewStars === true && strategy.bound === null;
  if (strategy.kind === 'window')
    return sql<PageRow>`${fixedPlan ? keptPlan : sql``} with ${viewerCteOf(facts)}${keptFactsCte(facts)}, page as materialized (${strategy.part === 'starred' ? starred : rest}) select * from page union all ${heldRows(known)}${keptFactsRow(facts)}`;
  // An unfiltered walk has one plan whoever asks (the order's index, at most `walkCap`
  // rows): kept per connection rather than planned at every page, which cost as much as
  // running it. Filtered and unbounded statements are planned for their values: a kept
  // plan of an unbounded one would not know the page's limit, and might sort the table.
  const keepPlan = !filtered && strategy.kind === 'walk';
  // A short walk either met the end of the order (the last page: complete) or stopped at
  // its bound (the caller sees few, or the filters are rare): a `stopPhase` row, the walk's
  // last entry read again from the index alone, tells the second, in the page's own
  // snapshot and without a statement of its own. Its offset is written in the text: as a
  // parameter, the generic plan's estimate of an unknown offset into the order made
  // PostgreSQL plan the kept statement at every call (a deep page 1.0 → 1.7 ms).
  // The common page sizes (walkedPageSize) give walkCap a handful of values, so a handful of texts.
  const walkGoesOn =
    strategy.kind === 'walk'
      ? sql` union all select ${stopPhase} as phase, null as created_at, w.id, false as hit, ${noDocumentColumnsSql}
        from (select a.id from assets a where ${restAfter} order by a.created_at desc, a.id offset ${sql.lit(strategy.walkCap - 1)} limit 1) w
        where (select count(*) from page) < ${take}::integer`
      : sql``;
  return sql<PageRow>`${keepPlan ? preparedStatement : sql``}
    with ${viewerCteOf(facts)}${keptFactsCte(facts)}, page as materialized (select * from ((${starred}) union all (${rest})) parts limit ${pageLimit})
    select * from page${walkGoesOn} union all ${heldRows(known)}${keptFactsRow(facts)}`;
}

/**
 * At most this many stars (as the caller's facts counted them), the part of a page that is
 * not starred leaves out the caller's starred assets by a hash of their ids, built once per
 * statement (`not in`, a hashed subplan: about 0.1 µs a row and 0.3 µs a star), instead of
 * probing the stars' key for each row its walk meets (about 1 µs a row: 280 probes of a
 * first page's 2.5 ms on the benchmark). More stars would cost more to hash than a page's
 * probes. The count only chooses how the stars are read, never what the page finds, so
 * facts kept a few seconds may hold it.
 */
export const hashedStarsMost = 500;
const starsHashed = (facts: ViewerFacts) => facts.stars !== undefined && facts.stars <= hashedStarsMost;

/**
 * Whether the caller starred the asset `id`, probed by the stars' key row by row (written as
 * `exists`, a kept (generic) plan would materialize all of the caller's stars and scan them
 * for every row; a scalar probe also keeps PostgreSQL from hashing 100,000 of them).
 */
const starProbe = (user: RawBuilder<unknown>, id: RawBuilder<unknown>) => sql`(select true from asset_stars s where s.user_id = ${user} and s.asset_id = ${id} limit 1)`;

/** That the walked asset `id` is not one of the caller's stars: hashed once for a caller's few stars (starsHashed), else probed by key. */
const notStarredBy = (facts: ViewerFacts, user: RawBuilder<unknown>, id: RawBuilder<unknown>) =>
  starsHashed(facts) ? sql`${id} not in (select s.asset_id from asset_stars s where s.user_id = ${user})` : sql`${starProbe(user, id)} is null`;

/** What pageStatement works out for a part's statement: the caller, the conditions on each asset, the residual, the page's columns and the version of the collections' facts kept. */
type StatementParts = { readonly user: RawBuilder<unknown>; readonly filters: RawBuilder<unknown>; readonly hit: RawBuilder<unknown>; readonly columns: RawBuilder<unknown>; readonly known: string | null };

/** Where a part's walk or gather starts: the cursor, when the page starts in that part. */
const partStart = (after: PagePosition | null, part: PagePosition['phase']) => (after !== null && after.phase === part ? { createdAt: after.createdAt, id: after.id } : null);

/**
 * One part of a page along a driver: its next `walkCap` matches in the listing's order,
 * each fetched by id and checked against the other conditions; the part's starred rows
 * are the matches the caller starred (the stars' key probed row by row), the rest those
 * they did not. The walk keeps the order, so nothing is sorted, and stops at `take` rows.
 */
function drivenStatement(request: PageRequest, facts: ViewerFacts, take: number, strategy: Extract<Strategy, { kind: 'driven' }>, parts: StatementParts, starredFirst?: RawBuilder<unknown>) {
  const { user, filters, hit, columns } = parts;
  const start = partStart(request.after, strategy.part);
  const guard = collectionGuard(strategy.driver, facts.p, request.viewer.isSystemAdmin);
  const walk = driverWalk(strategy.driver, start, strategy.walkCap, guard);
  // The part's size, unplanned as its cursor and its walk's bound are (pageStatement).
  const pageLimit = unplanned(take, 'integer');
  const selected = sql`${microTime('a.created_at')} as created_at, a.id, (${hit}) is true as hit, ${columns}`;
  // The stars' key is probed and each asset fetched row by row, in the walk's order (the
  // `offset 0` fence and the scalar probe keep PostgreSQL from hashing the caller's stars,
  // which may be 100,000, and sorting what it joined).
  const starredProbe = starProbe(user, sql`d.id`);
  const statement = sql`select ${strategy.part === 'starred' ? sql`0` : sql`1`} as phase, ${selected}
    from me, (${walk}) d cross join lateral (select a.* from assets a where a.id = d.id offset 0) a
    where ${strategy.part === 'rest' ? notStarredBy(facts, user, sql`d.id`) : strategy.driver.primary.kind === 'stars' ? sql`true` : starredProbe} and ${filters}
    order by d.created_at desc, d.id
    limit ${pageLimit}`;
  // Where the walk stopped (the last row it read, when it read all it may), a `stopPhase` row
  // after the page's: read in the page's own snapshot, since a write between two statements
  // would move it (a page skipped or repeated a match), and only when the page came back short.
  const stop = sql`select ${stopPhase} as phase, ${microTime('s.created_at')} as created_at, s.id, false as hit, ${noDocumentColumnsSql}
    from (${driverStop(strategy.driver, start, strategy.walkCap, guard)}) s
    where (select count(*) from page) < ${take}::integer`;
  // The caller's few starred matches first (`union all` under the limit runs the walk only for what they leave of the page).
  const rows = starredFirst ? sql`select * from ((${starredFirst}) union all (${statement})) parts limit ${pageLimit}` : statement;
  return sql<PageRow>`${keptPlan} with ${viewerCteOf(facts)}${keptFactsCte(facts)}, page as materialized (${rows}) select * from page union all ${stop} union all ${heldRows(parts.known)}${keptFactsRow(facts)}`;
}

/**
 * One part of a page from a range's numbers gathered by value (rangeGather): those after
 * the cursor, sorted into the listing's order, then each asset fetched and checked as a
 * walk's are, until the page is full. When the gather read more than `most` numbers it may
 * have left some out: nothing is fetched and a `gatherOverflowPhase` row says so (the part
 * walks instead). A gather that read them all leaves nothing after it, so no row says where
 * it stopped.
 */
function gatheredStatement(request: PageRequest, facts: ViewerFacts, take: number, strategy: Extract<Strategy, { kind: 'gathered' }>, parts: StatementParts) {
  const { user, filters, hit, columns } = parts;
  const start = partStart(request.after, strategy.part);
  const most = sql.lit(strategy.most);
  const starredProbe = starProbe(user, sql`d.id`);
  const afterCursor = afterInOrder(sql`g.created_at`, sql`g.id`, start);
  const statement = sql`select ${strategy.part === 'starred' ? sql`0` : sql`1`} as phase, ${microTime('a.created_at')} as created_at, a.id, (${hit}) is true as hit, ${columns}
    from me, (select g.id, g.created_at from gathered g where ${afterCursor} and (select c.n from gathered_count c) <= ${most} order by g.created_at desc, g.id) d
      cross join lateral (select a.* from assets a where a.id = d.id offset 0) a
    where ${strategy.part === 'rest' ? notStarredBy(facts, user, sql`d.id`) : starredProbe} and ${filters}
    order by d.created_at desc, d.id
    limit ${take}`;
  const overflow = sql`select ${gatherOverflowPhase} as phase, null as created_at, null as id, false as hit, ${noDocumentColumnsSql}
    where (select c.n from gathered_count c) > ${most}`;
  return sql<PageRow>`${keptPlan} with ${viewerCteOf(facts)}${keptFactsCte(facts)}, gathered as materialized (${rangeGather(strategy.driver, strategy.most)}),
    gathered_count as materialized (select count(*) as n from gathered), page as materialized (${statement}) select * from page union all ${overflow} union all ${heldRows(parts.known)}${keptFactsRow(facts)}`;
}

/** The phase of a gathered statement's row that says the range held more than it may gather (gatheredStatement). */
export const gatherOverflowPhase = 5;

/** The phase of a driven statement's row that says where its walk stopped (drivenStatement). */
export const stopPhase = 2;

export const positionOf = (row: PageRow): PagePosition => ({ phase: row.phase === 0 ? 'starred' : 'rest', createdAt: row.created_at, id: row.id });

/** Rows in the order's sense: a union's branches come out in order, but nothing in SQL promises it. */
export const inOrder = (rows: PageRow[]) =>
  rows.every((row, i) => i === 0 || row.phase >= (rows[i - 1] as PageRow).phase)
    ? rows
    : [...rows].sort((x, y) => x.phase - y.phase || (x.created_at < y.created_at ? 1 : x.created_at > y.created_at ? -1 : x.id < y.id ? -1 : 1));
