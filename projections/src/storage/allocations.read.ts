import { sql, type RawBuilder } from 'kysely';
import type { storage } from '@cairn/domain';
import type { ReadDb } from '../schema.ts';

export type AllocationRow = {
  id: string;
  owner_type: string;
  owner_id: string;
  repository_id: string;
  limit_bytes: string;
  used_bytes: string;
  reserved_bytes: string;
  content_count: number;
  is_default: boolean;
  version: number;
  created_at: Date;
  updated_at: Date;
};

export type AllocationViewer = { readonly userId: string; readonly isSystemAdmin: boolean };

/**
 * Who sees an allocation (docs/storage.md): a system administrator; the owner user; a
 * member of the owner project or organization; an admin of the organization that holds
 * the owner (the project's organization, or one the owner user belongs to).
 */
function seesSql(p: RawBuilder<string[]>, viewer: AllocationViewer) {
  return sql<boolean>`(${viewer.isSystemAdmin}::boolean
    or (a.owner_type = 'user' and a.owner_id = ${viewer.userId}::uuid)
    or (a.owner_type = 'project' and ('p:' || a.owner_id) = any(${p}))
    or (a.owner_type = 'organization' and ('o:' || a.owner_id) = any(${p}))
    or ${managesSql(p, viewer)})`;
}

/** A system administrator, or an admin of the organization that holds the owner. */
function managesSql(p: RawBuilder<string[]>, viewer: AllocationViewer) {
  return sql<boolean>`(${viewer.isSystemAdmin}::boolean
    or (a.owner_type = 'organization' and ('oa:' || a.owner_id) = any(${p}))
    or (a.owner_type = 'project' and exists (select 1 from projects pr where pr.id = a.owner_id and ('oa:' || pr.organization_id) = any(${p})))
    or (a.owner_type = 'user' and exists (select 1 from organization_memberships om where om.user_id = a.owner_id and ('oa:' || om.organization_id) = any(${p}))))`;
}

/**
 * Interface 4.2 and DECISIONS §8, exactly: a system administrator; for a project's
 * allocation also its admins and the admins of its organization. The owner user and the
 * admins of an organization (on its own or its members' allocations) are not listed there,
 * so they see the allocation but may not choose the default (403).
 */
function choosesDefaultSql(p: RawBuilder<string[]>, viewer: AllocationViewer) {
  return sql<boolean>`(${viewer.isSystemAdmin}::boolean
    or (a.owner_type = 'project' and ('pa:' || a.owner_id) = any(${p}))
    or (a.owner_type = 'project' and exists (select 1 from projects pr where pr.id = a.owner_id and ('oa:' || pr.organization_id) = any(${p}))))`;
}

const principals = (viewer: AllocationViewer) => sql<string[]>`cairn_principals(${viewer.userId}::uuid)`;

export type AllocationStanding = { readonly row: AllocationRow; readonly visible: boolean; readonly authority: storage.AllocationAuthority };

/** One allocation with what the caller may do with it; undefined when there is none. */
export async function allocationStanding(db: ReadDb, id: string, viewer: AllocationViewer): Promise<AllocationStanding | undefined> {
  const { rows } = await sql<AllocationRow & { sees: boolean; manages: boolean; chooses: boolean }>`
    with me as (select ${principals(viewer)} as p)
    select a.*, ${seesSql(sql`me.p`, viewer)} as sees, ${managesSql(sql`me.p`, viewer)} as manages, ${choosesDefaultSql(sql`me.p`, viewer)} as chooses
    from allocations a, me where a.id = ${id}::uuid`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  const { sees, manages, chooses, ...allocation } = row;
  return { row: allocation, visible: sees, authority: { manages, choosesDefault: chooses } };
}

/** Whether the caller manages allocations of this owner (for a create), and whether the owner exists. */
export async function allocationOwnerStanding(db: ReadDb, owner: storage.AllocationOwner, viewer: AllocationViewer): Promise<{ exists: boolean; manages: boolean }> {
  const table = owner.ownerType === 'user' ? sql`users` : owner.ownerType === 'project' ? sql`projects` : sql`organizations`;
  const { rows } = await sql<{ exists: boolean; manages: boolean }>`
    with me as (select ${principals(viewer)} as p),
    a as (select ${owner.ownerType}::text as owner_type, ${owner.ownerId}::uuid as owner_id)
    select exists (select 1 from ${table} t where t.id = a.owner_id) as exists, ${managesSql(sql`me.p`, viewer)} as manages from a, me`.execute(db);
  return rows[0] ?? { exists: false, manages: false };
}

export type AllocationFilter = {
  readonly organizationId?: string | undefined;
  readonly ownerId?: string | undefined;
  readonly ownerType?: string | undefined;
  readonly repositoryId?: string | undefined;
};

/**
 * The allocations the caller sees, filtered. `organizationId` (interface 4.2, DECISIONS §8):
 * those of every member of the organization and its own, not its projects'; the route
 * checks first that the caller is a system administrator or an admin of it.
 */
export async function listAllocations(db: ReadDb, filter: AllocationFilter, viewer: AllocationViewer): Promise<AllocationRow[]> {
  const conditions = [seesSql(sql`me.p`, viewer)];
  if (filter.organizationId) {
    const org = filter.organizationId;
    conditions.push(sql<boolean>`(
      (a.owner_type = 'organization' and a.owner_id = ${org}::uuid)
      or (a.owner_type = 'user' and exists (select 1 from organization_memberships om where om.user_id = a.owner_id and om.organization_id = ${org}::uuid)))`);
  }
  if (filter.ownerId) conditions.push(sql<boolean>`a.owner_id = ${filter.ownerId}::uuid`);
  if (filter.ownerType) conditions.push(sql<boolean>`a.owner_type = ${filter.ownerType}`);
  if (filter.repositoryId) conditions.push(sql<boolean>`a.repository_id = ${filter.repositoryId}::uuid`);
  const { rows } = await sql<AllocationRow>`
    with me as (select ${principals(viewer)} as p)
    select a.* from allocations a, me where ${sql.join(conditions, sql` and `)}
    order by a.created_at, a.id`.execute(db);
  return rows;
}

/** The snapshot a usage decision is made on, with the stream version it is at. */
export function snapshotOf(row: AllocationRow): { snapshot: storage.AllocationSnapshot; version: number } {
  return {
    snapshot: {
      id: row.id,
      ownerType: row.owner_type as storage.AllocationOwnerType,
      ownerId: row.owner_id,
      repositoryId: row.repository_id,
      limitBytes: Number(row.limit_bytes),
      usedBytes: Number(row.used_bytes),
      reservedBytes: Number(row.reserved_bytes),
      contentCount: row.content_count,
    },
    version: row.version,
  };
}

export async function findAllocationRow(db: ReadDb, id: string): Promise<AllocationRow | undefined> {
  return db.selectFrom('allocations').selectAll().where('id', '=', id).executeTakeFirst() as Promise<AllocationRow | undefined>;
}

/**
 * The allocation that pays for an asset's content (docs/storage.md): its owner's, on the
 * named repository when one is named; the owner's default first, else the oldest.
 */
export async function payingAllocation(db: ReadDb, owner: { ownerType: string; ownerId: string }, repositoryId: string | null): Promise<AllocationRow | undefined> {
  let query = db.selectFrom('allocations').selectAll().where('owner_type', '=', owner.ownerType).where('owner_id', '=', owner.ownerId);
  if (repositoryId) query = query.where('repository_id', '=', repositoryId);
  return query.orderBy('is_default', 'desc').orderBy('created_at').orderBy('id').limit(1).executeTakeFirst() as Promise<AllocationRow | undefined>;
}

/** DECISIONS.md 4: Allocation. */
export function presentAllocation(row: AllocationRow) {
  return {
    id: row.id,
    owner_type: row.owner_type,
    owner_id: row.owner_id,
    repository_id: row.repository_id,
    limit_bytes: Number(row.limit_bytes),
    used_bytes: Number(row.used_bytes),
    reserved_bytes: Number(row.reserved_bytes),
    content_count: row.content_count,
    is_default: row.is_default,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * The repository the asset's collections prefer (issue 11): that of the first collection
 * holding it (the one it was created in comes first) that names one; null when none does.
 */
export async function preferredRepositoryOf(db: ReadDb, assetId: string): Promise<string | null> {
  const { rows } = await sql<{ id: string }>`
    select c.preferred_repository_id as id
    from assets a cross join lateral unnest(a.collection_ids) with ordinality as held(collection_id, n)
    join collections c on c.id = held.collection_id
    where a.id = ${assetId}::uuid and c.preferred_repository_id is not null
    order by held.n limit 1`.execute(db);
  return rows[0]?.id ?? null;
}
