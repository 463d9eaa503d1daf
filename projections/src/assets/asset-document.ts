import { sql, type RawBuilder } from 'kysely';
import type { Held, HeldCollections } from './held-collections.ts';

/**
 * A listing row's Asset, from the document PostgreSQL keeps ready (`assets.doc`, migration
 * 0030) and the caller's own parts, worked out here from the row's grants: building the
 * whole JSON in SQL for every row of every page was half of a page's time, and the flags
 * and access scope in SQL most of the rest (docs/benchmarks.md, "Documents kept ready").
 * What needs other tables (the collections holding the asset) still comes from SQL, and
 * only for the rows some collection holds.
 */
export type DocumentColumns = {
  /** `assets.doc`: the JSON every caller sees alike, without its closing brace. Null when the row is not part of the answer. */
  doc: string | null;
  /** The asset's own grants (owner and entries) as JSON text: principal → flags. */
  own: string | null;
  entries: string | null;
  /** The principals that may read the asset by its own grants, comma-separated. */
  readers: string | null;
  /** Read one row at a time (`documentColumnsSql`), for an asset some collection holds: its Held as JSON. */
  held?: string | null;
  /** Read a page at a time (`pageDocumentColumnsSql`): the ids of the collections holding the asset, comma-separated; their facts come once per page (held-collections.ts). */
  held_in?: string | null;
};

/** The caller as a page's rows need it: its principals, from the same facts as the statement's `me`. */
export type DocumentViewer = {
  readonly isSystemAdmin: boolean;
  /** The caller's principals that make an access scope, each with the rank of its scope (`scopes`): the lowest found among a row's readers wins. */
  readonly scopeRanks: ReadonlyMap<string, number>;
  /** The caller's principal that `text` holds from `start` to `end`, if any (principalFinder). */
  readonly find: (text: string, start: number, end: number) => string | undefined;
};

/** A number from a stretch of text: its length and last three characters. */
const tailKey = (text: string, start: number, end: number) => {
  const at = (i: number) => (end - i > start ? text.charCodeAt(end - i) & 255 : 0);
  return (end - start) * 16_777_216 + at(1) * 65_536 + at(2) * 256 + at(3);
};

/**
 * Finds the caller's principals in a row's text where they stand, without slicing the text
 * into new strings and hashing them (most of a row's cost): principals are kept by the
 * number `tailKey` makes of them, and a candidate is compared in place.
 */
function principalFinder(principals: readonly string[]) {
  const byTail = new Map<number, string[]>();
  for (const principal of principals) {
    const key = tailKey(principal, 0, principal.length);
    byTail.set(key, [...(byTail.get(key) ?? []), principal]);
  }
  return (text: string, start: number, end: number) => byTail.get(tailKey(text, start, end))?.find((p) => text.startsWith(p, start));
}

/** Access scopes by rank: the most direct reason first. */
const scopes: readonly string[] = ['direct', 'project', 'group', 'organization'];

const scopeRankOf = (principal: string) =>
  principal.startsWith('u:') ? 0 : /^p[amv]?:/.test(principal) ? 1 : principal.startsWith('g:') ? 2 : /^oa?:/.test(principal) ? 3 : undefined;

export function documentViewer(principals: readonly string[], isSystemAdmin: boolean): DocumentViewer {
  const scopeRanks = new Map<string, number>();
  for (const principal of principals) {
    const rank = scopeRankOf(principal);
    if (rank !== undefined) scopeRanks.set(principal, rank);
  }
  return { isSystemAdmin, scopeRanks, find: principalFinder(principals) };
}

/** The columns every caller sees alike; `include` (the residual condition of a query, or true) decides which rows carry them. */
const sharedColumnsSql = (include: RawBuilder<unknown>) => sql`case when ${include} then a.doc end as doc,
    case when ${include} then a.owner_grants::text end as own,
    case when ${include} and a.entry_grants <> '{}' then a.entry_grants::text end as entries,
    case when ${include} then array_to_string(a.readers, ',') end as readers`;

/**
 * The columns a statement of one asset selects for the row `a`, the collections holding it
 * worked out in the statement: `inheritedFlags` is what they give the caller, worked out
 * once by the statement. `me.p` is the caller's principals (asset-json.ts). Whether a
 * collection lets the caller read what it holds is checked on each holding collection's
 * row, found by key: as a condition of the lookup, PostgreSQL's kept plan ANDed the
 * readers' index (3,317 collections for the bench's caller, 0.34 ms) into it.
 */
export function documentColumnsSql(include: RawBuilder<unknown>, isAdmin: RawBuilder<unknown>, inheritedFlags: RawBuilder<unknown>): RawBuilder<DocumentColumns> {
  return sql<DocumentColumns>`${sharedColumnsSql(include)},
    case when ${include} and cardinality(a.collection_ids) > 0 then json_build_array(
      array(select u.c from unnest(a.collection_ids) with ordinality u(c, n) where exists (select 1 from collections k where k.id = u.c) order by u.n),
      array(select u.c from unnest(a.collection_ids) with ordinality u(c, n)
        where exists (select 1 from collections k where k.id = u.c and (${isAdmin} or k.readers && me.p)) order by u.n),
      ${inheritedFlags},
      coalesce((select bool_or(coalesce(k.asset_readers && me.p, false)) from collections k where k.id = any(a.collection_ids)), false))::text end as held`;
}

/** The same for each row of a page: only the ids of the collections holding it, whose facts `heldCollections` reads once for the page. */
export const pageDocumentColumnsSql = (include: RawBuilder<unknown>): RawBuilder<DocumentColumns> =>
  sql<DocumentColumns>`${sharedColumnsSql(include)},
    case when ${include} and cardinality(a.collection_ids) > 0 then array_to_string(a.collection_ids, ',') end as held_in`;

/** The page's columns, empty: a row of a page's statement that is no asset (where a walk stopped). */
export const noDocumentColumnsSql = sql`null as doc, null as own, null as entries, null as readers, null as held_in`;


/**
 * What the asset's own grants give the caller: each grant of the row whose principal is the
 * caller's. The grants are jsonb's text of `{principal: flags}` (`{"u:…": 511, "g:…": 5}`),
 * read here without JSON.parse and the object it made for every row's grants. A principal
 * holds no quote or backslash, so a key ends at the next quote.
 */
export function grantedFlags(grants: string | null, viewer: DocumentViewer): number {
  if (grants === null) return 0;
  let flags = 0;
  let start = grants.indexOf('"');
  while (start !== -1) {
    const end = grants.indexOf('"', start + 1);
    let at = end + 1;
    while (grants.charCodeAt(at) === 58 /* : */ || grants.charCodeAt(at) === 32 /* space */) at += 1;
    let value = 0;
    for (let digit = grants.charCodeAt(at) - 48; digit >= 0 && digit <= 9; digit = grants.charCodeAt(at) - 48) {
      value = value * 10 + digit;
      at += 1;
    }
    if (viewer.find(grants, start + 1, end) !== undefined) flags |= value;
    start = grants.indexOf('"', at);
  }
  return flags;
}

/** `readers`: the row's readers, comma-separated, walked without splitting them into an array. */
export function accessScope(readers: string | null, held: Held | null, viewer: DocumentViewer): string | null {
  let best = scopes.length;
  let isPublic = false;
  for (let start = 0; readers && start < readers.length && best > 0; ) {
    const comma = readers.indexOf(',', start);
    const end = comma === -1 ? readers.length : comma;
    if (end - start === 1 && readers.charCodeAt(start) === 42 /* * */) isPublic = true;
    else {
      const principal = viewer.find(readers, start, end);
      if (principal !== undefined) best = Math.min(best, viewer.scopeRanks.get(principal) ?? best);
    }
    start = end + 1;
  }
  if (best < scopes.length) return scopes[best] as string;
  if (isPublic) return 'public';
  if (held?.[3]) return 'collection';
  return viewer.isSystemAdmin ? 'admin' : null;
}

/** A row's collections (its ids, comma-separated, in the row's order) as the caller sees them. */
export function heldOf(heldIn: string, collections: HeldCollections): Held {
  const existing: string[] = [];
  const visible: string[] = [];
  let flags = 0;
  let readsThrough = false;
  for (const id of heldIn.split(',')) {
    const collection = collections.get(id);
    if (collection === undefined) continue;
    existing.push(id);
    if (collection.visible) visible.push(id);
    flags |= collection.flags;
    readsThrough ||= collection.readsThrough;
  }
  return [existing, visible, flags, readsThrough];
}

function heldOfRow(row: DocumentColumns, collections: HeldCollections | undefined): Held | null {
  if (row.held_in) {
    if (collections === undefined) throw new Error('a page row needs the collections its page holds (heldCollections)');
    return heldOf(row.held_in, collections);
  }
  return row.held ? (JSON.parse(row.held) as Held) : null;
}

/**
 * The Asset of the interface for this caller: the stored document and the caller's parts.
 * `collection_ids` names only the collections that exist and the caller may see, or all that
 * exist for whoever manages the asset by its own grants, who may take it out of any of them
 * (docs/collections.md). `effective_flags` joins the asset's own grants with those of the
 * collections holding it (DECISIONS.md 2); `access_scope` is the most direct reason the
 * caller sees it (docs/assets.md).
 */
export function assetJsonOf(row: DocumentColumns, starred: boolean, viewer: DocumentViewer, collections?: HeldCollections): string {
  const held = heldOfRow(row, collections);
  const own = grantedFlags(row.own, viewer) | grantedFlags(row.entries, viewer);
  const flags = viewer.isSystemAdmin ? 511 : own | (held?.[2] ?? 0);
  const collectionIds = held === null ? '[]' : JSON.stringify((own & 256) !== 0 ? held[0] : held[1]);
  const scope = accessScope(row.readers, held, viewer);
  return `${row.doc},"collection_ids":${collectionIds},"is_starred":${starred},"effective_flags":${flags},"access_scope":${scope === null ? 'null' : `"${scope}"`}}`;
}
