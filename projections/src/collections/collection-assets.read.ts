import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';
import { keptCollectionPlan } from '../prepared-statements.ts';
import { viewerCteOf, visibleToMe, type ViewerFacts } from '../assets/asset-json.ts';
import { assetJsonOf, pageDocumentColumnsSql, documentViewer, type DocumentColumns } from '../assets/asset-document.ts';
import { heldRowsRead, heldRowsSql, readPageWithCollections, takeHeldRow } from '../assets/page-collections.ts';
import type { CollectionViewer } from './collections.read.ts';

/**
 * The orderings of interface 4.4 on collection_assets, each served by its own index
 * (migration 0018); `creator` sorts by the creating user's id (docs/collections.md).
 */
const columns = {
  created_at: { column: 'ca.created_at', type: 'timestamptz', key: `to_char(ca.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` },
  updated_at: { column: 'ca.updated_at', type: 'timestamptz', key: `to_char(ca.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` },
  title: { column: 'ca.title', type: 'text', key: 'ca.title' },
  creator: { column: 'ca.creator', type: 'uuid', key: 'ca.creator::text' },
} as const;

/**
 * Whether the viewer starred `a`: a probe of the stars' key per row. (An `exists` here is
 * planned as a hash of all of the viewer's stars — 100,000 of them for some — built before
 * the first row.)
 */
const starredByViewer = (userId: string) => sql`coalesce((select true from asset_stars s where s.user_id = ${userId}::uuid and s.asset_id = a.id limit 1), false)`;

/** A row of a collection's page statement: an asset (its sort key set), one of the collections its assets name, or the version of their facts (its id null). */
type PageRowOf = DocumentColumns & { starred: boolean; sort_key: string | null; id: string | null };

export type CollectionAssetsOrdering = keyof typeof columns | `-${keyof typeof columns}`;

/**
 * The assets of a collection that the viewer may read, in the asked order then by id (a
 * descending order is the ascending one reversed, ties included), after the key (value, id)
 * of the previous page's last asset; `take` rows at most. One walk of the ordering's index
 * from the cursor: a viewer who reads the collection's assets through the collection itself
 * (its entries, or its ancestors') sees them all, anyone else has each row checked as the
 * walk meets it.
 */
export async function collectionAssetsPage(
  db: ReadDb,
  viewer: CollectionViewer,
  facts: ViewerFacts,
  collectionId: string,
  ordering: CollectionAssetsOrdering,
  after: readonly [string, string] | null,
  take: number,
  /** Whether `take` is the page size most clients ask for (the interface's default): only then may the page keep its plan. */
  { commonSize = false }: { commonSize?: boolean } = {},
): Promise<{ json: string; key: [string, string] }[]> {
  const descending = ordering.startsWith('-');
  const spec = columns[(descending ? ordering.slice(1) : ordering) as keyof typeof columns];
  const column = sql.raw(spec.column);
  const direction = sql.raw(descending ? 'desc' : 'asc');
  const keyset = after === null ? sql`true` : sql`(${column}, ca.asset_id) ${sql.raw(descending ? '<' : '>')} (${after[0]}::${sql.raw(spec.type)}, ${after[1]}::uuid)`;
  // Once per statement (an uncorrelated subquery): whether the collection's own entries let the viewer read what it holds.
  const readsAll = sql`coalesce((select k.asset_readers && ${[...facts.p]}::text[] from collections k where k.id = ${collectionId}::uuid), false)`;
  if (!Number.isInteger(take) || take < 1) throw new Error(`a page takes a whole number of rows, not ${take}`);
  // A page of the common size keeps its plan (its size written in the text, which a kept
  // plan cannot estimate as a parameter): planning was a third of it. The generic plan walks
  // the ordering's index from the cursor as the planned one does. Other sizes are planned at
  // every call, so that clients cycling through sizes cannot take the process's places of
  // kept plans (kept in places of their own, keptCollectionPlan).
  const keep = commonSize;
  // The page, then each collection its rows name (a row whose sort key is null), in the
  // page's snapshot, or none when the statement reads the version of them its process kept
  // (page-collections.ts); then the version read (its id null too).
  const { page, collections } = await readPageWithCollections(db, facts.p, viewer.isSystemAdmin, async (known) => {
    const held = heldRowsSql(known, { held: sql`false as starred, null as sort_key, k.id`, version: sql`false as starred, null as sort_key, null as id` });
    const { rows } = await sql<PageRowOf>`${keep ? keptCollectionPlan : sql``}
      with ${viewerCteOf(facts)}, page as materialized (
        select ${starredByViewer(viewer.userId)} as starred, ${sql.raw(spec.key)} as sort_key, a.id, ${pageDocumentColumnsSql(sql`true`)}
        from me, collection_assets ca join assets a on a.id = ca.asset_id
        where ca.collection_id = ${collectionId}::uuid and ${keyset} and ${viewer.isSystemAdmin ? sql`true` : sql`(${readsAll} or ${visibleToMe(false, 'probed')})`}
        order by ${column} ${direction}, ca.asset_id ${direction}
        limit ${sql.lit(take)})
      select * from page
      union all ${held}`.execute(db);
    const got = heldRowsRead();
    const assets: PageRowOf[] = [];
    for (const row of rows) {
      if (row.sort_key !== null) assets.push(row);
      else if (row.id === null) got.version = row.readers;
      else takeHeldRow(got, { ...row, id: row.id });
    }
    return { page: assets, held: got };
  });
  const asViewer = documentViewer(facts.p, viewer.isSystemAdmin);
  return page.map((r) => ({ json: assetJsonOf(r, r.starred, asViewer, collections), key: [r.sort_key as string, r.id as string] as [string, string] }));
}
