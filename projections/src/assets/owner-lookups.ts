import type { assets } from '@cairn/domain';
import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';

/** Whether an owner of this kind and id exists (users, projects, organizations read models). */
export async function ownerExists(db: ReadDb, ownerType: assets.OwnerType, ownerId: string): Promise<boolean> {
  const table = ownerType === 'user' ? 'users' : ownerType === 'project' ? 'projects' : 'organizations';
  const { rows } = await sql`select 1 from ${sql.table(table)} where id = ${ownerId}::uuid`.execute(db);
  return rows.length > 0;
}

/**
 * The caller's flags on a collection (docs/collections.md: its owner's grants, its entries
 * and those of its ancestors; everything for a system administrator), or null when it does
 * not exist.
 */
export async function collectionFlags(db: ReadDb, collectionId: string, principals: readonly string[], isSystemAdmin: boolean): Promise<number | null> {
  const { rows } = await sql<{ flags: number }>`
    select cairn_effective_flags(owner_grants, cairn_grants_union(entry_grants, inherited_grants), ${[...principals]}::text[], ${isSystemAdmin}::boolean) as flags
    from collections where id = ${collectionId}::uuid`.execute(db);
  return rows[0]?.flags ?? null;
}
