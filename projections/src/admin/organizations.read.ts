import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';

export type OrganizationRecord = {
  id: string;
  name: string;
  country: string | null;
  created_at: Date;
  member_count: number;
  current_user_role: string | null;
};

/** Organizations with their member count and the role of `viewerId` in each (null when not a member). */
function organizationsSeenBy(db: ReadDb, viewerId: string) {
  return db
    .selectFrom('organizations as o')
    .leftJoin('organization_memberships as mine', (join) => join.onRef('mine.organization_id', '=', 'o.id').on('mine.user_id', '=', viewerId))
    .select([
      'o.id',
      'o.name',
      'o.country',
      'o.created_at',
      'mine.role as current_user_role',
      sql<number>`(select count(*)::int from organization_memberships m where m.organization_id = o.id)`.as('member_count'),
    ]);
}

/** The caller's organizations; every organization for a system administrator. Ordered by name, then id. */
export async function listOrganizations(db: ReadDb, viewer: { userId: string; isSystemAdmin: boolean }): Promise<OrganizationRecord[]> {
  let query = organizationsSeenBy(db, viewer.userId);
  if (!viewer.isSystemAdmin) query = query.where('mine.user_id', 'is not', null);
  return query.orderBy(sql`lower(o.name)`).orderBy('o.id').execute();
}

/** One organization, if the viewer may see it: its members and system administrators only. */
export async function findOrganization(db: ReadDb, id: string, viewer: { userId: string; isSystemAdmin: boolean }): Promise<OrganizationRecord | undefined> {
  const row = await organizationsSeenBy(db, viewer.userId).where('o.id', '=', id).executeTakeFirst();
  if (!row || (!viewer.isSystemAdmin && row.current_user_role === null)) return undefined;
  return row;
}

export function presentOrganization(record: OrganizationRecord) {
  return {
    id: record.id,
    name: record.name,
    country: record.country,
    created_at: record.created_at.toISOString(),
    member_count: record.member_count,
    current_user_role: record.current_user_role,
  };
}
