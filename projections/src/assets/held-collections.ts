import { grantedFlags, type DocumentViewer } from './asset-document.ts';

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

/** A collection's facts as its row of the page's statement carries them. */
export type HeldFactRow = { id: string; visible: boolean; reads: string | null; entries: string; inherited: string };

/** The statement's collections, from their rows. */
export function heldCollectionsOf(rows: readonly HeldFactRow[], viewer: DocumentViewer): HeldCollections {
  return new Map(rows.map((r) => [r.id, { visible: r.visible, flags: grantedFlags(r.entries, viewer) | grantedFlags(r.inherited, viewer), readsThrough: r.reads === 't' }]));
}
