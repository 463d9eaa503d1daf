import { sql } from 'kysely';
import { accessScope, grantedFlags, type DocumentViewer } from '../assets/asset-document.ts';

/**
 * A listing row's Collection, from the document PostgreSQL keeps ready (`collections.doc`,
 * migration 0051) and what is the caller's own or lives in other tables: the owners' names,
 * the ancestors the caller may see, the caller's flags and access scope. Reading each
 * field as a column and building the object in Node was most of the service's time on a
 * listing page (docs/benchmarks.md, eighteenth sitting).
 */
export type CollectionDocumentRow = {
  readonly id: string;
  /** `collections.doc`: the JSON every caller sees alike, without its closing brace. */
  readonly doc: string;
  readonly parent_id: string | null;
  /** The whole ancestor chain, root first, comma-separated (uuids hold no comma). */
  readonly parent_ids: string;
  readonly owner_user_name: string | null;
  readonly owner_project_name: string | null;
  /** The grants as jsonb's text (grantedFlags) and the readers comma-separated (accessScope). */
  readonly own: string;
  readonly entries: string;
  readonly inherited: string;
  readonly readers: string;
};

/**
 * The columns of a CollectionDocumentRow for the collection `c`. An owner's name is looked up
 * only for the kind of owner the row has: over a small `projects` table PostgreSQL scans it
 * whole for every row, the user-owned ones too (150 projects: 10–13 % of a listing page's
 * statement, docs/benchmarks.md, twenty-second sitting).
 */
export const collectionDocumentColumnsSql = sql`c.id, c.doc, c.parent_id, array_to_string(c.parent_ids, ',') as parent_ids,
  case when c.owner_user_id is not null then (select u.name from users u where u.id = c.owner_user_id) end as owner_user_name,
  case when c.owner_project_id is not null then (select p.name from projects p where p.id = c.owner_project_id) end as owner_project_name,
  c.owner_grants::text as own, c.entry_grants::text as entries, c.inherited_grants::text as inherited, array_to_string(c.readers, ',') as readers`;

/**
 * The Collection of the interface (2.3) for this caller, as presentCollection answers it
 * for a single read: only the ancestors in `seenAncestors` are told (null: all of them, for
 * a system administrator), a hidden parent is a null `parent_id` (docs/collections.md), and
 * `is_starred` is always false.
 */
export function collectionJsonOf(row: CollectionDocumentRow, viewer: DocumentViewer, seenAncestors: ReadonlySet<string> | null): string {
  const chain = row.parent_ids === '' ? [] : row.parent_ids.split(',');
  const seen = seenAncestors === null ? chain : chain.filter((id) => seenAncestors.has(id));
  const parentId = row.parent_id !== null && seen.includes(row.parent_id) ? `"${row.parent_id}"` : 'null';
  const flags = viewer.isSystemAdmin ? 511 : grantedFlags(row.own, viewer) | grantedFlags(row.entries, viewer) | grantedFlags(row.inherited, viewer);
  const scope = accessScope(row.readers, null, viewer);
  return `${row.doc},"owner_user_name":${JSON.stringify(row.owner_user_name)},"owner_project_name":${JSON.stringify(row.owner_project_name)},"parent_id":${parentId},"parent_ids":${JSON.stringify(seen)},"effective_flags":${flags},"access_scope":${scope === null ? 'null' : `"${scope}"`},"is_starred":false}`;
}
