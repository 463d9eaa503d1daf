import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';
import type { AssetViewer } from '../assets/assets.read.ts';
import { viewerCte } from '../assets/asset-json.ts';

export type RelationshipRecord = { id: string; from_asset_id: string; to_asset_id: string; relationship_type: string; created_by: string | null; created_at: Date };

/**
 * The asset's outgoing (or incoming) relationships whose other end the viewer may read
 * (READ_METADATA, the `readers` of migration 0011, and not owned by a project whose
 * geographic restriction denies this request): hidden assets are not revealed through
 * their links. Oldest first.
 */
export async function listRelationships(
  db: ReadDb,
  assetId: string,
  direction: 'outgoing' | 'incoming',
  viewer: AssetViewer,
  deniedProjects: readonly string[] = [],
): Promise<RelationshipRecord[]> {
  const [here, there] = direction === 'outgoing' ? ['from_asset_id', 'to_asset_id'] : ['to_asset_id', 'from_asset_id'];
  const readable = viewer.isSystemAdmin ? sql`true` : sql`(o.readers && me.p or o.collection_ids && me.vc)`;
  const notDenied = deniedProjects.length === 0 ? sql`true` : sql`not (o.owner_type = 'project' and o.owner_id = any(${[...deniedProjects]}::uuid[]))`;
  const { rows } = await sql<RelationshipRecord>`
    with ${viewerCte(viewer.userId)}
    select r.id, r.from_asset_id, r.to_asset_id, r.relationship_type, r.created_by, r.created_at
    from me, asset_relationships r join assets o on o.id = r.${sql.raw(there)}
    where r.${sql.raw(here)} = ${assetId}::uuid and ${readable} and ${notDenied}
    order by r.created_at, r.id`.execute(db);
  return rows;
}

export async function findRelationship(db: ReadDb, fromAssetId: string, id: string): Promise<RelationshipRecord | undefined> {
  return db.selectFrom('asset_relationships').selectAll().where('from_asset_id', '=', fromAssetId).where('id', '=', id).executeTakeFirst();
}

export function presentRelationship(record: RelationshipRecord) {
  return {
    id: record.id,
    from_asset_id: record.from_asset_id,
    to_asset_id: record.to_asset_id,
    relationship_type: record.relationship_type,
    created_by: record.created_by,
    created_at: record.created_at.toISOString(),
  };
}
