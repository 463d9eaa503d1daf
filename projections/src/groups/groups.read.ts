import { lowercaseAsPostgres } from '@cairn/platform';
import type { organizations } from '@cairn/domain';
import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';
import { membersGroupId } from './members-group.ts';

export type GroupRow = {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  type: 'members' | 'custom';
  member_count: number;
  created_at: Date;
  updated_at: Date;
};

export type GroupMemberRow = { id: string; email: string; name: string };

const columns = ['id', 'organization_id', 'name', 'description', 'type', 'member_count', 'created_at', 'updated_at'] as const;

export async function findGroup(db: ReadDb, id: string): Promise<GroupRow | undefined> {
  return db.selectFrom('groups').select(columns).where('id', '=', id).executeTakeFirst();
}

/** The caller's role in an organization, from the identity read model; null: not a member. */
export async function findOrganizationRole(db: ReadDb, organizationId: string, userId: string): Promise<organizations.OrganizationRole | null> {
  const row = await db
    .selectFrom('organization_memberships')
    .select('role')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!row) return null;
  return row.role === 'admin' ? 'admin' : 'member';
}

export async function organizationExists(db: ReadDb, organizationId: string): Promise<boolean> {
  const row = await db.selectFrom('organizations').select('id').where('id', '=', organizationId).executeTakeFirst();
  return row !== undefined;
}

/**
 * The user's current membership of the organization, as the members group holds it: the
 * id of the event that made the user a member, or null when the user is not one.
 */
export async function findOrganizationMembershipId(db: ReadDb, organizationId: string, userId: string): Promise<string | null> {
  const row = await db
    .selectFrom('group_members')
    .select('membership_id')
    .where('group_id', '=', membersGroupId(organizationId))
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.membership_id ?? null;
}

export type GroupListFilter = {
  /** Null for a system administrator: every group. Otherwise groups of the organizations this user belongs to. */
  readonly visibleTo: string | null;
  /** Groups this user is a member of. */
  readonly memberId?: string | undefined;
  /** A case-insensitive substring of the name; `%` and `_` are literal. */
  readonly q?: string | undefined;
};

/** Ordered by lower(name), then id; one query, served by the indexes of migration 0006. */
export async function listGroups(db: ReadDb, filter: GroupListFilter): Promise<GroupRow[]> {
  let query = db.selectFrom('groups').select(columns);
  if (filter.visibleTo !== null) {
    const caller = filter.visibleTo;
    query = query.where('organization_id', 'in', (eb) => eb.selectFrom('organization_memberships').select('organization_id').where('user_id', '=', caller));
  }
  if (filter.memberId !== undefined) {
    const member = filter.memberId;
    query = query.where('id', 'in', (eb) => eb.selectFrom('group_members').select('group_id').where('user_id', '=', member));
  }
  if (filter.q) {
    const pattern = `%${lowercaseAsPostgres(filter.q).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where(sql<boolean>`lower(name) like ${pattern}`);
  }
  return query.orderBy(sql`lower(name)`).orderBy('id').execute();
}

/** Ordered by lower(name), then e-mail address. */
export async function listGroupMembers(db: ReadDb, groupId: string): Promise<GroupMemberRow[]> {
  return db
    .selectFrom('group_members')
    .innerJoin('users', 'users.id', 'group_members.user_id')
    .select(['users.id', 'users.email', 'users.name'])
    .where('group_members.group_id', '=', groupId)
    .orderBy(sql`lower(users.name)`)
    .orderBy('users.email')
    .execute();
}

export async function findGroupMember(db: ReadDb, groupId: string, userId: string): Promise<GroupMemberRow | undefined> {
  return db
    .selectFrom('group_members')
    .innerJoin('users', 'users.id', 'group_members.user_id')
    .select(['users.id', 'users.email', 'users.name'])
    .where('group_members.group_id', '=', groupId)
    .where('group_members.user_id', '=', userId)
    .executeTakeFirst();
}

/** The resource of interface 2.4, as both services answer it. */
export function presentGroup(row: GroupRow) {
  return {
    id: row.id,
    organization_id: row.organization_id,
    name: row.name,
    description: row.description,
    type: row.type,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    member_count: row.member_count,
  };
}

export function presentGroupMember(row: GroupMemberRow) {
  return { id: row.id, email: row.email, name: row.name };
}
