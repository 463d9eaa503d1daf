import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';
import { preparedStatement } from '../prepared-statements.ts';
import { documentViewer, grantedFlags } from './asset-document.ts';

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

export const noHeldCollections: HeldCollections = new Map();

/**
 * The collections named by a page's rows (`heldIn`: each row's ids, comma-separated), each
 * worked out once for the page: most of a page's assets share a few collections, and
 * working out each row's collections in the page's statement was most of its time (a
 * collection's page of 100 assets: 6.5 of 7.5 ms, docs/benchmarks.md).
 */
export async function heldCollections(db: ReadDb, heldIn: readonly (string | null | undefined)[], principals: readonly string[], isSystemAdmin: boolean): Promise<HeldCollections> {
  const ids = new Set<string>();
  for (const list of heldIn) if (list) for (const id of list.split(',')) ids.add(id);
  if (ids.size === 0) return noHeldCollections;
  const p = [...principals];
  // The flags come from the grants' text, read here as an asset's own are (grantedFlags):
  // worked out by PostgreSQL, a hundred collections' grants took 3.5 ms.
  const { rows } = await sql<{ id: string; visible: boolean; reads: boolean; entries: string; inherited: string }>`${preparedStatement}
    select k.id, ${isSystemAdmin}::boolean or k.readers && ${p}::text[] as visible, k.asset_readers && ${p}::text[] as reads,
      k.entry_grants::text as entries, k.inherited_grants::text as inherited
    from collections k where k.id = any(${[...ids]}::uuid[])`.execute(db);
  const viewer = documentViewer(principals, isSystemAdmin);
  return new Map(rows.map((r) => [r.id, { visible: r.visible, flags: grantedFlags(r.entries, viewer) | grantedFlags(r.inherited, viewer), readsThrough: r.reads }]));
}
