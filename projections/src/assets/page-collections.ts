import { sql, type RawBuilder } from 'kysely';
import type { ReadDb } from '../schema.ts';
import { unplanned } from '../keyset.ts';
import { documentViewer } from './asset-document.ts';
import { heldCollectionsOf, type HeldCollections } from './held-collections.ts';
import { callerHeldFact, factsVersionSql, heldFactsCacheOf, keepHeldFacts, keptFactsOf, loadAllHeldFacts, namedCollections, type SharedHeldFacts } from './held-facts-cache.ts';

/*
 * The collections a page's assets are held in, as a page statement reads them: the asset
 * listing's (page-statements.ts) and a collection's own page (collection-assets.read.ts).
 */

/**
 * The leading columns of a page statement's rows that are no asset: one of the collections
 * its rows name (`held`, with `k.id` as its id) and the row with the version of the
 * collections' facts it read (`version`, its id null). The rest of each row is in the
 * page's document columns (pageDocumentColumnsSql).
 */
export type HeldRowsLead = { readonly held: RawBuilder<unknown>; readonly version: RawBuilder<unknown> };

/**
 * The rows of the collections that the statement's `page` names (its rows' `held_in`), with
 * what every caller reads alike of them (held-facts-cache.ts): their assets' readers in
 * `doc`, their entries in `own`, what flows down to them in `entries` and their readers in
 * `readers`. None when the statement reads the version `known`, whose facts the process
 * kept; then a row with the version read, in `readers`. Most of a page's assets share a few
 * collections, once each here (working out each row's collections in the statement was 6.5
 * of a collection page's 7.5 ms, docs/benchmarks.md); read in the page's own snapshot, as
 * the version is: a second statement could see a collection's entries revoked after the
 * page listed an asset through it, which then came back without READ_METADATA.
 */
export function heldRowsSql(known: string | null, lead: HeldRowsLead): RawBuilder<unknown> {
  // Unplanned, as a kept statement's cursor is: a custom plan would fold a null away and cost otherwise than the generic one.
  const given = unplanned(known, 'text');
  return sql`select ${lead.held}, array_to_string(k.asset_readers, ',') as doc,
      k.entry_grants::text as own, k.inherited_grants::text as entries, array_to_string(k.readers, ',') as readers, null as held_in
    from collections k where (${given} is null or ${factsVersionSql} is distinct from ${given})
      and k.id = any(array(select distinct unnest(string_to_array(p.held_in, ','))::uuid from page p where p.held_in is not null))
    union all select ${lead.version}, null as doc, null as own, null as entries, ${factsVersionSql} as readers, null as held_in`;
}

/** What a page statement read of its collections: their rows (heldRowsSql) by id, and the version row's version. */
export type HeldRowsRead = { readonly facts: Map<string, SharedHeldFacts>; version: string | null };

export const heldRowsRead = (): HeldRowsRead => ({ facts: new Map(), version: null });

/** Takes a collection's row of the statement (heldRowsSql's columns) into `read`. */
export function takeHeldRow(read: HeldRowsRead, row: { id: string; doc: string | null; own: string | null; entries: string | null; readers: string | null }): void {
  read.facts.set(row.id, { readers: row.readers ?? '', assetReaders: row.doc ?? '', entries: row.own ?? '{}', inherited: row.entries ?? '{}' });
}

/**
 * The collections named by a page's rows (`heldIn`), for the caller of principals `p`: from
 * the statement's own rows, or kept from an earlier statement that read the same version
 * (those the process lacks read under that version). Null when the version moved before
 * those were read. Keeps what the statement read, and starts the read of a new version's
 * collections.
 */
async function pageCollections(db: ReadDb, known: string | null, read: HeldRowsRead, heldIn: readonly (string | null | undefined)[], p: readonly string[], isSystemAdmin: boolean): Promise<HeldCollections | null> {
  const cache = heldFactsCacheOf(db);
  const { version } = read;
  if (version !== null && version !== known) keepHeldFacts(cache, version, read.facts, known);
  if (version !== null && cache.version === version) loadAllHeldFacts(db, cache, version);
  const ids = namedCollections(heldIn);
  if (ids.length === 0) return new Map();
  const named = version !== null && version === known ? await keptFactsOf(db, cache, version, ids) : read.facts;
  if (named === undefined) return null;
  const viewer = documentViewer(p, isSystemAdmin);
  return heldCollectionsOf([...named].map(([id, shared]) => callerHeldFact(id, shared, viewer)), viewer);
}

/**
 * A page and the collections its rows name, for the caller of principals `p`. `read` runs
 * the page's statement given the version of the collections' facts its process kept (null:
 * none, so that the statement sends them all) and sorts its rows into the page's and the
 * collections' (takeHeldRow, and the version row's `version`). When a collection changed
 * between the page and the read of what its process lacked, the page is read again without
 * the kept facts: it is never answered with facts of two moments.
 */
export async function readPageWithCollections<Row extends { held_in?: string | null | undefined }>(
  db: ReadDb,
  p: readonly string[],
  isSystemAdmin: boolean,
  read: (known: string | null) => Promise<{ page: Row[]; held: HeldRowsRead }>,
): Promise<{ page: Row[]; collections: HeldCollections }> {
  for (const known of [heldFactsCacheOf(db).version, null]) {
    const { page, held } = await read(known);
    const collections = await pageCollections(db, known, held, page.map((row) => row.held_in), p, isSystemAdmin);
    if (collections !== null) return { page, collections };
  }
  throw new Error('a page read without the kept facts has its collections in its own rows');
}
