import { allPermissionBits, assets } from '@cairn/domain';
import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';

/** Whether an owner of this kind and id exists (users, projects, organizations read models). */
export async function ownerExists(db: ReadDb, ownerType: assets.OwnerType, ownerId: string): Promise<boolean> {
  const table = ownerType === 'user' ? 'users' : ownerType === 'project' ? 'projects' : 'organizations';
  const { rows } = await sql`select 1 from ${sql.table(table)} where id = ${ownerId}::uuid`.execute(db);
  return rows.length > 0;
}

/**
 * The caller's flags on a collection, or null when it does not exist. Until the
 * collections issue gives collections their own entries, ownership decides: the owner
 * user, and the owner project's roles as on its assets.
 */
export async function collectionFlags(db: ReadDb, collectionId: string, principals: readonly string[], isSystemAdmin: boolean): Promise<number | null> {
  const row = await db.selectFrom('collections').select(['owner_type', 'owner_user_id', 'owner_project_id']).where('id', '=', collectionId).executeTakeFirst();
  if (!row) return null;
  if (isSystemAdmin) return allPermissionBits;
  const owner: assets.AssetOwner =
    row.owner_type === 'project' ? { ownerType: 'project', ownerId: row.owner_project_id ?? '' } : { ownerType: 'user', ownerId: row.owner_user_id ?? '' };
  return assets.effectiveFlags([assets.ownerGrants(owner)], { principals, inheritedFlags: 0 }, false);
}
