import { sql, type RawBuilder } from 'kysely';

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
  /** For an asset some collection holds: [its existing collections, those the caller may see, their flags for the caller, whether one lets the caller read it]. */
  held: string | null;
};

/** The caller as a page's rows need it: its principals by kind, from the same facts as the statement's `me`. */
export type DocumentViewer = {
  readonly isSystemAdmin: boolean;
  readonly principals: ReadonlySet<string>;
  readonly direct: ReadonlySet<string>;
  readonly project: ReadonlySet<string>;
  readonly group: ReadonlySet<string>;
  readonly organization: ReadonlySet<string>;
};

export function documentViewer(principals: readonly string[], isSystemAdmin: boolean): DocumentViewer {
  const of = (test: (k: string) => boolean) => new Set(principals.filter(test));
  return {
    isSystemAdmin,
    principals: new Set(principals),
    direct: of((k) => k.startsWith('u:')),
    project: of((k) => /^p[amv]?:/.test(k)),
    group: of((k) => k.startsWith('g:')),
    organization: of((k) => /^oa?:/.test(k)),
  };
}

/**
 * The columns a page statement selects for each row of `a`; `include` (the residual
 * condition of a query, or true) decides which rows carry them. `me.p` is the caller's
 * principals (asset-json.ts).
 */
export function documentColumnsSql(include: RawBuilder<unknown>, isAdmin: RawBuilder<unknown>): RawBuilder<DocumentColumns> {
  return sql<DocumentColumns>`case when ${include} then a.doc end as doc,
    case when ${include} then a.owner_grants::text end as own,
    case when ${include} and a.entry_grants <> '{}' then a.entry_grants::text end as entries,
    case when ${include} then array_to_string(a.readers, ',') end as readers,
    case when ${include} and cardinality(a.collection_ids) > 0 then json_build_array(
      array(select u.c from unnest(a.collection_ids) with ordinality u(c, n) where exists (select 1 from collections k where k.id = u.c) order by u.n),
      array(select u.c from unnest(a.collection_ids) with ordinality u(c, n)
        where exists (select 1 from collections k where k.id = u.c and (${isAdmin} or k.readers && me.p)) order by u.n),
      cairn_collection_flags(a.collection_ids, me.p),
      exists (select 1 from collections k where k.id = any(a.collection_ids) and k.asset_readers && me.p))::text end as held`;
}

type Held = [existing: string[], visible: string[], flags: number, readsThrough: boolean];

/** What the asset's own grants give the caller: each grant of the row whose principal is the caller's. */
function grantedFlags(grants: string | null, viewer: DocumentViewer): number {
  if (grants === null) return 0;
  let flags = 0;
  const parsed = JSON.parse(grants) as Record<string, number>;
  for (const key in parsed) if (viewer.principals.has(key)) flags |= parsed[key] as number;
  return flags;
}

function accessScope(readers: readonly string[], held: Held | null, viewer: DocumentViewer): string | null {
  const any = (of: ReadonlySet<string>) => readers.some((r) => of.has(r));
  if (any(viewer.direct)) return 'direct';
  if (any(viewer.project)) return 'project';
  if (any(viewer.group)) return 'group';
  if (any(viewer.organization)) return 'organization';
  if (readers.includes('*')) return 'public';
  if (held?.[3]) return 'collection';
  return viewer.isSystemAdmin ? 'admin' : null;
}

/**
 * The Asset of the interface for this caller: the stored document and the caller's parts.
 * `collection_ids` names only the collections that exist and the caller may see, or all that
 * exist for whoever manages the asset by its own grants, who may take it out of any of them
 * (docs/collections.md). `effective_flags` joins the asset's own grants with those of the
 * collections holding it (DECISIONS.md 2); `access_scope` is the most direct reason the
 * caller sees it (docs/assets.md).
 */
export function assetJsonOf(row: DocumentColumns, starred: boolean, viewer: DocumentViewer): string {
  const held = row.held === null ? null : (JSON.parse(row.held) as Held);
  const own = grantedFlags(row.own, viewer) | grantedFlags(row.entries, viewer);
  const flags = viewer.isSystemAdmin ? 511 : own | (held?.[2] ?? 0);
  const collections = held === null ? [] : (own & 256) !== 0 ? held[0] : held[1];
  const readers = row.readers ? row.readers.split(',') : [];
  return `${row.doc},"collection_ids":${JSON.stringify(collections)},"is_starred":${starred},"effective_flags":${flags},"access_scope":${JSON.stringify(accessScope(readers, held, viewer))}}`;
}
