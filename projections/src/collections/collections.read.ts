import { sql, type RawBuilder } from 'kysely';
import type { ReadDb } from '../schema.ts';
import { afterInOrder } from '../keyset.ts';
import { isoTime, principalList, principalsText, viewerCte, viewerCteOf, viewerFacts, type ViewerFacts } from '../assets/asset-json.ts';
import { likeEscaped } from '../assets/asset-filters.ts';
import { keptCollectionPlan, preparedStatement } from '../prepared-statements.ts';
import { collectionDocumentColumnsSql, collectionJsonOf, type CollectionDocumentRow } from './collection-document.ts';
import { isKept, keptFactsCte, StaleViewerFacts } from '../assets/kept-facts.ts';
import { collectionEntries, entriesOf } from '../assets/permissions.read.ts';
import type { SubjectViewer } from '../assets/subject-visibility.ts';
import { accessScope, documentViewer, grantedFlags, type DocumentViewer } from '../assets/asset-document.ts';

export type CollectionViewer = { readonly userId: string; readonly isSystemAdmin: boolean };

/** A collection as the viewer sees it (interface 2.3), with what the routes need besides. */
export type CollectionView = {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly alias: string;
  readonly tags: string[];
  readonly type: string[];
  readonly license: string;
  readonly parent_id: string | null;
  /** The whole ancestor chain, root first: what the writes check (a move's cycle). */
  readonly parent_ids: string[];
  /** The ancestors the viewer may see, root first: all that is answered (presentCollection). */
  readonly seen_parent_ids: string[];
  readonly owner_type: string;
  readonly owner_user_id: string | null;
  readonly owner_project_id: string | null;
  readonly owner_user_name: string | null;
  readonly owner_project_name: string | null;
  readonly is_root: boolean;
  readonly preferred_repository_id: string | null;
  readonly provenance_token: string;
  readonly effective_flags: number;
  readonly access_scope: string | null;
  readonly created_at: string;
  readonly updated_at: string;
};

/**
 * Whether the viewer `me` may see the collection with this id (READ_METADATA): a constant of
 * the statement for a given id, so a filter pays it once.
 */
const seenCollection = (id: RawBuilder<unknown>, isAdmin: boolean): RawBuilder<boolean> =>
  isAdmin ? sql<boolean>`exists (select 1 from collections k where k.id = ${id})` : sql<boolean>`exists (select 1 from collections k where k.id = ${id} and k.readers && me.p)`;

/**
 * The ancestors of `c` that the viewer may see, root first (docs/collections.md): a
 * sub-collection granted on its own must not tell the ids of the hidden ones above it. A
 * lookup by key per ancestor, and none for a root or a system administrator.
 */
const seenParentIds = (isAdmin: boolean) =>
  isAdmin
    ? sql`c.parent_ids`
    : sql`case when cardinality(c.parent_ids) = 0 then c.parent_ids
      else array(select u.x from unnest(c.parent_ids) with ordinality u(x, n) where ${seenCollection(sql`u.x`, false)} order by u.n) end`;

/**
 * A collection's row as read: a CollectionView but for the viewer's flags and access scope,
 * worked out here from the grants' text (collectionViewOf) rather than by PostgreSQL for
 * every row, which was most of a listing page's time (docs/benchmarks.md).
 */
type CollectionRow = Omit<CollectionView, 'effective_flags' | 'access_scope'> & { own: string; entries: string; inherited: string; readers: string };

/**
 * The viewer's flags on the collection (DECISIONS.md 2): every grant of its owner, its own
 * entries and its ancestors' whose principal is the viewer's; and the most direct reason
 * the viewer sees it (docs/collections.md).
 */
function collectionViewOf(row: CollectionRow, viewer: DocumentViewer): CollectionView {
  const { own, entries, inherited, readers, ...view } = row;
  const flags = viewer.isSystemAdmin ? 511 : grantedFlags(own, viewer) | grantedFlags(entries, viewer) | grantedFlags(inherited, viewer);
  return { ...view, effective_flags: flags, access_scope: accessScope(readers, null, viewer) };
}

/**
 * The columns of a CollectionRow, for the collection `c` and the viewer `me` (viewerCte): one
 * collection's read. A listing page reads the stored document instead (collection-document.ts).
 */
const viewColumns = (isAdmin: boolean) => sql`
  c.id, c.title, c.description, c.alias, c.tags, c.type, c.license, c.parent_id, c.parent_ids, ${seenParentIds(isAdmin)} as seen_parent_ids,
  c.owner_type, c.owner_user_id, c.owner_project_id,
  case when c.owner_user_id is not null then (select u.name from users u where u.id = c.owner_user_id) end as owner_user_name,
  case when c.owner_project_id is not null then (select p.name from projects p where p.id = c.owner_project_id) end as owner_project_name,
  c.is_root, c.preferred_repository_id, coalesce(c.provenance_token, '') as provenance_token,
  c.owner_grants::text as own, c.entry_grants::text as entries, c.inherited_grants::text as inherited, array_to_string(c.readers, ',') as readers,
  ${sql.raw(isoTime('c.created_at'))} as created_at, ${sql.raw(isoTime('c.updated_at'))} as updated_at`;

/**
 * The ancestors of the page's rows that the viewer `me` may see, comma-separated: each
 * looked up once for the page, where working them out per row looked up every row's chain
 * (485 lookups for a page of 101 five levels deep, most of the rows' time).
 */
const seenAncestorsOfPage = sql`(select string_agg(k.id::text, ',') from me, (select distinct a from page p, unnest(p.chain) a) x
    join collections k on k.id = x.a where k.readers && me.p)`;

/** Whether the viewer may see the collection `c` (READ_METADATA through its owner or entries). */
const visible = (isAdmin: boolean): RawBuilder<unknown> => (isAdmin ? sql`true` : sql`c.readers && me.p`);

/**
 * The viewer's principals and the collection as the viewer sees it, visible or not (null: it
 * does not exist). With `facts` (viewerFacts) read before, the principals are not read again.
 */
export async function collectionStanding(db: ReadDb, id: string, viewer: CollectionViewer, facts?: ViewerFacts): Promise<{ principals: string[]; collection: CollectionView | null }> {
  const { rows } = await sql<CollectionRow & { principals: string; found: string | null }>`${preparedStatement}
    with ${facts ? viewerCteOf(facts) : viewerCte(viewer.userId)}
    select ${principalsText(sql`me.p`)} as principals, c.id as found, ${viewColumns(viewer.isSystemAdmin)}
    from me left join collections c on c.id = ${id}::uuid`.execute(db);
  const row = rows[0];
  if (!row) throw new Error('the standing query returned no row');
  const { principals: principalText, found, ...view } = row;
  const principals = principalList(principalText);
  return { principals, collection: found === null ? null : collectionViewOf(view, documentViewer(principals, viewer.isSystemAdmin)) };
}

/**
 * Interface 2.3, for the viewer; `is_starred` is always false: the interface has no star
 * routes for collections. Only the ancestors the viewer may see are answered: a hidden
 * parent is a null `parent_id` (docs/collections.md).
 */
export function presentCollection(view: CollectionView) {
  const { seen_parent_ids, parent_id, ...rest } = view;
  return { ...rest, parent_id: parent_id !== null && seen_parent_ids.includes(parent_id) ? parent_id : null, parent_ids: seen_parent_ids, is_starred: false };
}

export type CollectionListFilter = {
  readonly accessScope?: string | undefined;
  readonly ownerId?: string | undefined;
  readonly ownerType?: string | undefined;
  readonly parentId?: string | undefined;
  readonly q?: string | undefined;
};

export type CollectionPosition = { readonly createdAt: string; readonly id: string };

/**
 * Beyond so many principals (a caller in hundreds of groups or projects), the walks of the
 * postings would read more than a walk of collections_order, which meets the collections of
 * any of them as it goes.
 */
const readerWalkPrincipalsMost = 64;

/**
 * The first `take` collections after `after` that the viewer `me` may see, found through
 * their readers' postings (migration 0045): the first `take` of each of the viewer's
 * principals, in the listing's order, merged. A page reads at most `take` entries per
 * principal, however few of the newest collections the viewer sees (docs/collections.md,
 * "Collections by reader"); walking collections_order instead read every entry the viewer
 * may not see on the way. The rows' own readers still decide, before the page's limit: a
 * posting left behind costs a lookup, and can neither show a collection nor end the
 * listing early. The candidates are sorted first (fenced by `offset 0`), so that the rows
 * are looked up in the page's order and only until the page is full.
 */
const readerWalk = (after: CollectionPosition | null, take: number) => sql`(select k.* from me, (
      select distinct o.created_at, o.collection_id as id from me, unnest(me.p) x(principal)
      cross join lateral (select o.created_at, o.collection_id from collection_reader_order o
        where o.principal = x.principal and ${afterInOrder(sql`o.created_at`, sql`o.collection_id`, after)}
        order by o.created_at desc, o.collection_id limit ${sql.lit(take)}) o
      order by 1 desc, 2 offset 0) d
    join collections k on k.id = d.id
    where k.readers && me.p
    order by d.created_at desc, d.id limit ${sql.lit(take)}) c`;

/** A collection of a listing page: its JSON as the caller sees it (collectionJsonOf), and its place in the order. */
export type ListedCollection = { readonly id: string; readonly position: string; readonly json: string };

/**
 * The collections the viewer may see, newest first, then by id; keyset-paginated (`take` rows
 * at most). With `facts` (viewerFacts) read before, the principals are not read again: the
 * pages of one streamed listing all see the collections with the same principals.
 */
export async function listCollections(
  db: ReadDb,
  viewer: CollectionViewer,
  filter: CollectionListFilter,
  after: CollectionPosition | null,
  take: number,
  facts?: ViewerFacts,
  /** Whether `take` is the page size most clients ask for: only then may an unfiltered page keep its plan. */
  { commonSize = false }: { commonSize?: boolean } = {},
): Promise<ListedCollection[]> {
  if (!Number.isInteger(take) || take < 1) throw new Error(`a page takes a whole number of rows, not ${take}`);
  // A filter's index finds the rows and visibility only checks them (coalesce hides it from
  // the readers index, which for most viewers matches nearly every collection).
  const narrowed = Boolean(filter.ownerId || filter.parentId || filter.q);
  const where: RawBuilder<unknown>[] = [narrowed && !viewer.isSystemAdmin ? sql`coalesce(c.readers && me.p, false)` : visible(viewer.isSystemAdmin)];
  if (after) where.push(afterInOrder(sql`c.created_at`, sql`c.id`, after));
  if (filter.ownerId) where.push(sql`(c.owner_user_id = ${filter.ownerId}::uuid or c.owner_project_id = ${filter.ownerId}::uuid)`);
  if (filter.ownerType) where.push(sql`c.owner_type = ${filter.ownerType}`);
  // A hidden parent lists nothing, like a random id: its children must not tell it exists.
  if (filter.parentId) where.push(sql`c.parent_id = ${filter.parentId}::uuid and ${seenCollection(sql`${filter.parentId}::uuid`, viewer.isSystemAdmin)}`);
  if (filter.q) {
    const pattern = `%${likeEscaped(filter.q)}%`;
    where.push(sql`(lower(c.title) like ${pattern} or lower(c.alias) like ${pattern})`);
  }
  if (filter.accessScope === 'home') where.push(sql`c.readers && array(select x from unnest(me.p) x where x like 'u:%' or x like 'o:%' or x like 'oa:%' or x = '*')`);
  else if (filter.accessScope) where.push(sql`cairn_access_scope(c.readers, me.p, ${viewer.isSystemAdmin}::boolean) = ${filter.accessScope}`);
  // The principals go in as parameters: PostgreSQL then knows whether the viewer sees most
  // collections (walk collections_order) or few (gather them through collections_readers).
  const principals = facts ?? (await viewerFacts(db, viewer.userId));
  // Unfiltered, the page's ids come from an index alone and only the page's rows are read
  // from the table: the readers' postings for a caller (readerWalk); collections_order for
  // a system administrator, who sees every collection, and for a caller of so many
  // principals that their postings would be more to read.
  const onlyVisibility = !narrowed && !filter.ownerType && !filter.accessScope;
  const byPostings = !viewer.isSystemAdmin && principals.p.length <= readerWalkPrincipalsMost;
  const source = !onlyVisibility
    ? sql`collections c where ${sql.join(where, sql` and `)}`
    : byPostings
      ? readerWalk(after, take)
      : sql`(select c.id from me, collections c where ${sql.join(where, sql` and `)} order by c.created_at desc, c.id limit ${sql.lit(take)}) w join collections c on c.id = w.id`;
  const page = sql`select ${collectionDocumentColumnsSql}, c.parent_ids as chain, to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as position, c.created_at as at
    from me, ${source}
    order by c.created_at desc, c.id
    limit ${sql.lit(take)}`;
  // An unfiltered page of the common size keeps its plan (prepared-statements.ts): its shape
  // alone fixes it (each principal's postings walked from the cursor, or collections_order for
  // a system administrator), and planning was a quarter of it (docs/collections.md). A walk of
  // the order for a caller of many principals is not kept: whether their collections are
  // many (walk the order) or few (gather them by their readers) depends on the principals.
  const keep = commonSize && onlyVisibility && (byPostings || viewer.isSystemAdmin) ? keptCollectionPlan : sql``;
  const p = [...principals.p];
  // Kept facts (kept-facts.ts): the statement works the principals out again and says when they changed, on a row of its own when the page is empty.
  const seen = viewer.isSystemAdmin ? sql`null` : seenAncestorsOfPage;
  const columns = sql`page.id, page.doc, page.parent_id, page.parent_ids, page.owner_user_name, page.owner_project_name, page.own, page.entries, page.inherited, page.readers, page.position`;
  type Row = CollectionDocumentRow & { position: string; stale?: string | null; seen_ancestors: string | null };
  const statement = isKept(principals)
    ? sql<Row>`${keep}with ${viewerCteOf(principals)}${keptFactsCte(principals)}, page as materialized (${page})
        select ${columns}, s.stale, ${seen} as seen_ancestors from (select case when not (f.p @> ${p}::text[] and ${p}::text[] @> f.p) then array_to_string(f.p, ',') end as stale from fresh f) s
        left join page on true order by page.at desc, page.id`
    : sql<Row>`${keep}with ${viewerCteOf(principals)}, page as materialized (${page}) select ${columns}, ${seen} as seen_ancestors from page order by page.at desc, page.id`;
  const { rows } = await statement.execute(db);
  const stale = rows[0]?.stale;
  if (typeof stale === 'string') throw new StaleViewerFacts({ p: principalList(stale), restricted: true });
  const asViewer = documentViewer(principals.p, viewer.isSystemAdmin);
  const seenAncestors = viewer.isSystemAdmin ? null : new Set(rows[0]?.seen_ancestors ? rows[0].seen_ancestors.split(',') : []);
  return rows.filter((row) => row.id !== null).map((row) => ({ id: row.id, position: row.position, json: collectionJsonOf(row, asViewer, seenAncestors) }));
}

/** Whether the collection has sub-collections or holds assets. */
export async function collectionIsEmpty(db: ReadDb, id: string): Promise<boolean> {
  const { rows } = await sql<{ empty: boolean }>`
    select not exists (select 1 from collections where parent_id = ${id}::uuid)
       and not exists (select 1 from assets where collection_ids @> array[${id}::uuid]) as empty`.execute(db);
  return rows[0]?.empty ?? true;
}

/** The collection and every collection under it, the deepest first. */
export async function subtreeIds(db: ReadDb, id: string): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    select id from collections where id = ${id}::uuid or parent_ids @> array[${id}::uuid] order by cardinality(parent_ids) desc, id`.execute(db);
  return rows.map((r) => r.id);
}

/** The ids of the assets held by any of these collections. */
export async function assetsInCollections(db: ReadDb, collectionIds: readonly string[]): Promise<{ id: string; collection_ids: string[] }[]> {
  const { rows } = await sql<{ id: string; collection_ids: string[] }>`select id, collection_ids from assets where collection_ids && ${[...collectionIds]}::uuid[]`.execute(db);
  return rows;
}

/** Collection permission entries, resolved like the assets' and as the viewer may see them (interface 2.5). */
export async function collectionPermissionEntries(db: ReadDb, collectionId: string, viewer: SubjectViewer) {
  return (await entriesOf(db, collectionEntries, [collectionId], viewer)).get(collectionId) ?? [];
}
