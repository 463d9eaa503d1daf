import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';
import { assetJsonSql, viewerCte, visibleToMe } from '../assets/asset-json.ts';
import type { CollectionViewer } from './collections.read.ts';

/** The orderings of interface 4.4; `creator` sorts by the creating user's id (docs/collections.md). */
const columns = {
  created_at: { column: 'a.created_at', type: 'timestamptz', key: `to_char(a.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` },
  updated_at: { column: 'a.updated_at', type: 'timestamptz', key: `to_char(a.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` },
  title: { column: 'a.title', type: 'text', key: 'a.title' },
  creator: { column: `coalesce(a.created_by, '00000000-0000-0000-0000-000000000000'::uuid)`, type: 'uuid', key: `coalesce(a.created_by, '00000000-0000-0000-0000-000000000000'::uuid)::text` },
} as const;

export type CollectionAssetsOrdering = keyof typeof columns | `-${keyof typeof columns}`;

/**
 * The assets of a collection that the viewer may read, in the asked order then by id,
 * after the key (value, id) of the previous page's last asset; `take` rows at most.
 */
export async function collectionAssetsPage(
  db: ReadDb,
  viewer: CollectionViewer,
  collectionId: string,
  ordering: CollectionAssetsOrdering,
  after: readonly [string, string] | null,
  take: number,
): Promise<{ json: string; key: [string, string] }[]> {
  const descending = ordering.startsWith('-');
  const spec = columns[(descending ? ordering.slice(1) : ordering) as keyof typeof columns];
  const column = sql.raw(spec.column);
  const cast = sql.raw(spec.type);
  const keyset =
    after === null
      ? sql`true`
      : sql`(${column} ${sql.raw(descending ? '<' : '>')} ${after[0]}::${cast} or (${column} = ${after[0]}::${cast} and a.id > ${after[1]}::uuid))`;
  const admin = sql`${viewer.isSystemAdmin}::boolean`;
  const { rows } = await sql<{ json: string; sort_key: string; id: string }>`
    with ${viewerCte(viewer.userId)}
    select ${assetJsonSql(admin, sql`exists (select 1 from asset_stars s where s.user_id = ${viewer.userId}::uuid and s.asset_id = a.id)`)} as json,
      ${sql.raw(spec.key)} as sort_key, a.id
    from me, assets a
    where a.collection_ids @> array[${collectionId}::uuid] and ${visibleToMe(viewer.isSystemAdmin)} and ${keyset}
    order by ${column} ${sql.raw(descending ? 'desc' : 'asc')}, a.id
    limit ${take}`.execute(db);
  return rows.map((r) => ({ json: r.json, key: [r.sort_key, r.id] }));
}
