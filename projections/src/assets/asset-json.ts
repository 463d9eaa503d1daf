import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { ReadModelTables } from '../schema.ts';
import { preparedStatement } from '../prepared-statements.ts';

/** A timestamp as JavaScript's toISOString writes it (milliseconds, `Z`). */
export const isoTime = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The caller as a statement sees it: `me.p`, its principals (docs/assets.md), and `me.vc`,
 * the collections whose entries (their own or their ancestors') let it read the assets
 * they hold (docs/collections.md). The principals are worked out once (`principals` is
 * materialized); the readable collections only when the statement reads `me.vc` (`me` is
 * inlined, and PostgreSQL never runs a CTE nobody reads): a read by id does not, and
 * finding them was half of its time.
 */
export function viewerCte(userId: string): RawBuilder<unknown> {
  return sql`principals as materialized (select cairn_principals(${userId}::uuid) as p),
    mine as materialized (select array(select c.id from collections c where c.asset_readers && (select x.p from principals x)) as vc),
    me as not materialized (
    select x.p, (select mine.vc from mine) as vc,
      array(select k from unnest(x.p) k where k like 'u:%') as pd,
      array(select k from unnest(x.p) k where k like 'p%:%') as pp,
      array(select k from unnest(x.p) k where k like 'g:%') as pg,
      array(select k from unnest(x.p) k where k like 'o%:%') as po
    from principals x)`;
}

/**
 * The caller's principals as a statement sends them back (`principals`), and as read
 * (`principalList`): one comma-separated text, since no principal holds a comma. pg parses a
 * text[] a character at a time, which cost more Node time than the rest of a read by id's row.
 */
export const principalsText = (principals: RawBuilder<unknown>) => sql<string>`array_to_string(${principals}, ',')`;
export const principalList = (text: string | null | undefined): string[] => (text ? text.split(',') : []);

/**
 * The caller's principals, read once: a listing then plans with them known. A listing's
 * facts (listingViewerFacts) also say whether any project has a geographic restriction, so
 * that it looks restrictions up only when there are some, and how many assets the caller
 * starred, counted up to `starsCounted` (a filtered page checks few stars at once).
 */
export type ViewerFacts = { readonly p: readonly string[]; readonly restricted?: boolean; readonly stars?: number };

/** Stars are counted up to this many (an index walk of at most so many entries). */
export const starsCounted = 2_000;

export async function viewerFacts(db: Kysely<ReadModelTables>, userId: string): Promise<ViewerFacts> {
  const { rows } = await sql<{ p: string }>`${preparedStatement} select ${principalsText(sql`cairn_principals(${userId}::uuid)`)} as p`.execute(db);
  return { p: principalList(rows[0]?.p) };
}

/** The caller's facts for an asset listing or query, in the one statement. */
export async function listingViewerFacts(db: Kysely<ReadModelTables>, userId: string): Promise<ViewerFacts> {
  const { rows } = await sql<{ p: string; restricted: boolean; stars: number }>`${preparedStatement}
    select ${principalsText(sql`cairn_principals(${userId}::uuid)`)} as p, exists (select 1 from projects where geobound_enabled) as restricted,
      (select count(*)::integer from (select 1 from asset_stars where user_id = ${userId}::uuid limit ${starsCounted}::integer) s) as stars`.execute(db);
  const row = rows[0];
  return { p: principalList(row?.p), restricted: row?.restricted ?? true, stars: row?.stars ?? starsCounted };
}

/**
 * The same `me` as viewerCte, from facts read before: the principals are parameters of the
 * statement, so PostgreSQL estimates `readers && me.p` from the column's statistics (a
 * caller who sees most assets, or almost none) and plans accordingly. The readable
 * collections (`vc`) are worked out in the statement, once (`mine` is materialized), never
 * sent back and forth: a caller may read through thousands of collections, and shipping
 * their ids cost more than the page (docs/benchmarks.md, collections).
 */
export function viewerCteOf(facts: ViewerFacts): RawBuilder<unknown> {
  const of = (test: (k: string) => boolean) => facts.p.filter(test);
  const p = [...facts.p];
  return sql`mine as materialized (select array(select c.id from collections c where c.asset_readers && ${p}::text[]) as vc),
    me as not materialized (select ${p}::text[] as p, (select mine.vc from mine) as vc,
    ${of((k) => k.startsWith('u:'))}::text[] as pd, ${of((k) => /^p[amv]?:/.test(k))}::text[] as pp,
    ${of((k) => k.startsWith('g:'))}::text[] as pg, ${of((k) => /^oa?:/.test(k))}::text[] as po)`;
}

/**
 * Why the caller sees `a`, the most direct reason first (docs/assets.md), from the
 * principal classes of `me`: a few small array overlaps per row.
 */
export function accessScopeSql(isAdmin: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`(case when a.readers && me.pd then 'direct' when a.readers && me.pp then 'project' when a.readers && me.pg then 'group'
    when a.readers && me.po then 'organization' when '*' = any(a.readers) then 'public'
    when exists (select 1 from collections k where k.id = any(a.collection_ids) and k.asset_readers && me.p) then 'collection'
    when ${isAdmin} then 'admin' end)`;
}

/**
 * Whether the caller may read the asset `a` (READ_METADATA): its own grants, or a
 * collection holding it. `indexed` lets the GIN indexes find the visible assets (readers,
 * and collection_ids against `me.vc`, the collections the caller reads through); `probed`
 * checks rows that something else found: it hides the test from the indexes (coalesce),
 * since PostgreSQL cannot know how many assets the caller sees and would otherwise AND a
 * bitmap of all of them into the filter's, and it looks up the row's own collections by
 * key instead of overlapping the row's ids with `me.vc`, which cost a statement 1–4 ms to
 * gather and each row an overlap with a thousand ids (docs/benchmarks.md). The lookup is
 * by key alone (coalesce): as an index condition, the readers' GIN index was ANDed in for
 * every row (0.16 ms each).
 */
export function visibleToMe(isSystemAdmin: boolean, form: 'indexed' | 'probed' = 'indexed'): RawBuilder<unknown> {
  if (isSystemAdmin) return sql`true`;
  return form === 'indexed'
    ? sql`(a.readers && me.p or a.collection_ids && me.vc)`
    : sql`coalesce(a.readers && me.p or (cardinality(a.collection_ids) > 0 and exists (select 1 from collections k where k.id = any(a.collection_ids) and coalesce(k.asset_readers && me.p, false))), false)`;
}

/**
 * What the asset's own grants (ownership and entries) give the caller: each of the caller's
 * principals looked up in the two grant maps. A caller has a handful of principals and an
 * asset a handful of grants; looking keys up cost half of expanding both maps into rows
 * and joining them (docs/benchmarks.md, issue 24).
 */
const ownFlags = sql<number>`coalesce((select bit_or(coalesce((a.owner_grants ->> k)::integer, 0) | coalesce((a.entry_grants ->> k)::integer, 0)) from unnest(me.p) k), 0)`;

/** What the collections holding `a` (and their ancestors) give the caller. */
export const flagsFromCollections = sql<number>`case when cardinality(a.collection_ids) > 0 then cairn_collection_flags(a.collection_ids, me.p) else 0 end`;

/**
 * The caller's effective flags on `a` (DECISIONS.md 2), collections included: the asset's
 * grants (a handful of keys) against the caller's principals.
 * Every entry of a holding collection (or its ancestors) counts, not only those of the
 * collections that let the caller read (`me.vc`): an entry without READ_METADATA still
 * gives its other flags on an asset the caller reads otherwise.
 */
export function myFlags(isAdmin: RawBuilder<unknown>, inherited: RawBuilder<unknown> = flagsFromCollections): RawBuilder<number> {
  return sql<number>`(case when ${isAdmin} then 511 else ${ownFlags} | ${inherited} end)`;
}
