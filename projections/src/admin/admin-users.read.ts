import { lowercaseAsPostgres } from '@cairn/platform';
import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';

export type AdminUserMembership = { organization_id: string; name: string; role: string };

export type AdminUserRecord = {
  id: string;
  email: string;
  name: string;
  is_active: boolean;
  is_system_admin: boolean;
  created_at: Date;
  last_login: Date | null;
  organizations: AdminUserMembership[];
};

export type AdminUserFilter = {
  /** Case-insensitive substring of the name or the e-mail address; `%` and `_` are literal. */
  readonly q?: string | undefined;
  readonly includeDeactivated: boolean;
  readonly limit: number;
  readonly offset: number;
};

type Db = Pick<ReadDb, 'selectFrom'>;

const columns = ['id', 'email', 'name', 'is_active', 'is_system_admin', 'created_at', 'last_login'] as const;

const likePattern = (q: string) => `%${lowercaseAsPostgres(q).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

async function membershipsOf(db: Db, userIds: readonly string[]): Promise<Map<string, AdminUserMembership[]>> {
  const byUser = new Map<string, AdminUserMembership[]>();
  if (userIds.length === 0) return byUser;
  const rows = await db
    .selectFrom('organization_memberships as m')
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .select(['m.user_id', 'm.organization_id', 'o.name', 'm.role'])
    .where('m.user_id', 'in', userIds)
    .orderBy(sql`lower(o.name)`)
    .orderBy('o.id')
    .execute();
  for (const { user_id, ...membership } of rows) {
    const list = byUser.get(user_id) ?? [];
    list.push(membership);
    byUser.set(user_id, list);
  }
  return byUser;
}

export async function findAdminUser(db: ReadDb, id: string): Promise<AdminUserRecord | undefined> {
  const row = await db.selectFrom('users').select(columns).where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  const memberships = await membershipsOf(db, [id]);
  return { ...row, organizations: memberships.get(id) ?? [] };
}

/**
 * One page of the admin user list, ordered by name (case-insensitive), then id. The count
 * and the page are read in one snapshot so that they agree.
 */
export async function listAdminUsers(db: ReadDb, filter: AdminUserFilter): Promise<{ count: number; users: AdminUserRecord[] }> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (trx) => {
      let matching = trx.selectFrom('users');
      if (!filter.includeDeactivated) matching = matching.where('is_active', '=', true);
      if (filter.q) {
        const pattern = likePattern(filter.q);
        matching = matching.where(sql<boolean>`(lower(name) like ${pattern} or email like ${pattern})`);
      }
      const counted = await matching.select(sql<number>`count(*)::int`.as('count')).executeTakeFirstOrThrow();
      const rows = await matching.select(columns).orderBy(sql`lower(name)`).orderBy('id').limit(filter.limit).offset(filter.offset).execute();
      const memberships = await membershipsOf(trx, rows.map((r) => r.id));
      return { count: counted.count, users: rows.map((row) => ({ ...row, organizations: memberships.get(row.id) ?? [] })) };
    });
}

/** AdminUserDetail, as every admin user operation answers it. */
export function presentAdminUser(record: AdminUserRecord) {
  return {
    id: record.id,
    email: record.email,
    name: record.name,
    is_active: record.is_active,
    is_system_admin: record.is_system_admin,
    created_at: record.created_at.toISOString(),
    last_login: record.last_login ? record.last_login.toISOString() : null,
    organizations: record.organizations.map((m) => ({ organization_id: m.organization_id, name: m.name, role: m.role })),
  };
}
