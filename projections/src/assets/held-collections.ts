import { sql, type RawBuilder } from 'kysely';
import { grantedFlags, type DocumentColumns, type DocumentViewer } from './asset-document.ts';

/** What the caller may know of one collection that holds some of a page's assets. */
export type HeldCollection = {
  /** Whether the caller may see the collection (READ_METADATA through its owner or entries). */
  readonly visible: boolean;
  /** The caller's flags from the collection's entries and its ancestors'. */
  readonly flags: number;
  /** Whether those entries let the caller read the assets it holds. */
  readonly readsThrough: boolean;
};

/** The collections holding a page's assets, by id; a collection that no longer exists is absent. */
export type HeldCollections = ReadonlyMap<string, HeldCollection>;

/** For a row: [its existing collections, those the caller may see, their flags for the caller, whether one lets the caller read it]. */
export type Held = [existing: string[], visible: string[], flags: number, readsThrough: boolean];

/**
 * Each collection named by the rows of the statement's `page` (their `held_in`: ids,
 * comma-separated), once: whether the caller sees it, whether its entries let the caller
 * read what it holds, and its grants' text, from which Node reads the caller's flags as it
 * reads an asset's own. Most of a page's assets share a few collections, and working out
 * each row's collections in the page's statement was most of its time (a collection's page
 * of 100 assets: 6.5 of 7.5 ms, docs/benchmarks.md). Read in the page's own statement, so
 * in its snapshot: a second statement could see a collection's entries revoked after the
 * page listed an asset through it, which then came back without READ_METADATA.
 */
export function heldFactsSql(isSystemAdmin: boolean): { id: RawBuilder<string>; visible: RawBuilder<boolean>; columns: RawBuilder<unknown>; from: RawBuilder<unknown> } {
  return {
    id: sql<string>`k.id`,
    visible: sql<boolean>`(${isSystemAdmin}::boolean or k.readers && me.p)`,
    // In the page's document columns (DocumentColumns), read back by heldFactOf.
    columns: sql`null as doc, k.entry_grants::text as own, k.inherited_grants::text as entries,
      case when k.asset_readers && me.p then 't' end as readers, null as held_in`,
    from: sql`me, collections k where k.id = any(array(select distinct unnest(string_to_array(p.held_in, ','))::uuid from page p where p.held_in is not null))`,
  };
}

/** A collection's facts from its row of the page's statement (heldFactsSql's columns), and whether the caller sees it. */
export const heldFactOf = (row: DocumentColumns & { id: string }, visible: boolean): HeldFactRow => ({
  id: row.id,
  visible,
  reads: row.readers,
  entries: row.own ?? '{}',
  inherited: row.entries ?? '{}',
});

/** A collection's facts as its row of the page's statement carries them. */
export type HeldFactRow = { id: string; visible: boolean; reads: string | null; entries: string; inherited: string };

/** The statement's collections, from their rows. */
export function heldCollectionsOf(rows: readonly HeldFactRow[], viewer: DocumentViewer): HeldCollections {
  return new Map(rows.map((r) => [r.id, { visible: r.visible, flags: grantedFlags(r.entries, viewer) | grantedFlags(r.inherited, viewer), readsThrough: r.reads === 't' }]));
}
