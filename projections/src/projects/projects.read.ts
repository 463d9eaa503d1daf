import { projects } from '@cairn/domain';
import { lowercaseAsPostgres } from '@cairn/platform';
import type { GeoBasis, GeoPolicy } from '@cairn/platform';
import { sql } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type { ReadDb } from '../schema.ts';

export type Viewer = { readonly userId: string; readonly isSystemAdmin: boolean };

export type ProjectRecord = {
  id: string;
  organization_id: string;
  owner_id: string;
  name: string;
  description: string;
  root_collection_id: string;
  member_count: number;
  geobound_enabled: boolean;
  geobound_basis: string;
  geobound_allowed_countries: string[];
  geobound_allowed_country_set: string | null;
  geobound_denied_country_set: string | null;
  geobound_block_vpn: boolean;
  geobound_fail_closed: boolean;
  created_at: Date;
  updated_at: Date;
  /** The viewer's role in the project, and in its organization. */
  member_role: string | null;
  organization_role: string | null;
  is_starred: boolean;
};

const projectColumns = [
  'p.id',
  'p.organization_id',
  'p.owner_id',
  'p.name',
  'p.description',
  'p.root_collection_id',
  'p.member_count',
  'p.geobound_enabled',
  'p.geobound_basis',
  'p.geobound_allowed_countries',
  'p.geobound_allowed_country_set',
  'p.geobound_denied_country_set',
  'p.geobound_block_vpn',
  'p.geobound_fail_closed',
  'p.created_at',
  'p.updated_at',
] as const;

/** Projects with what the viewer is in each: its role in the project and in the organization, its star. */
function projectsSeenBy(db: ReadDb, viewerId: string) {
  return db
    .selectFrom('projects as p')
    .leftJoin('project_members as pm', (join) => join.onRef('pm.project_id', '=', 'p.id').on('pm.user_id', '=', viewerId))
    .leftJoin('organization_memberships as om', (join) => join.onRef('om.organization_id', '=', 'p.organization_id').on('om.user_id', '=', viewerId))
    .select([
      ...projectColumns,
      'pm.role as member_role',
      'om.role as organization_role',
      sql<boolean>`exists (select 1 from project_stars s where s.user_id = ${viewerId} and s.project_id = p.id)`.as('is_starred'),
    ]);
}

const isProjectRole = (role: string | null): role is projects.ProjectRole => role !== null && (projects.projectRoles as readonly string[]).includes(role);

export function accessOfRecord(record: ProjectRecord, viewer: Viewer): projects.ProjectAccess {
  return projects.projectAccess({
    isSystemAdmin: viewer.isSystemAdmin,
    memberRole: isProjectRole(record.member_role) ? record.member_role : null,
    organizationRole: record.organization_role,
  });
}

/** The project as the viewer sees it; undefined when it does not exist or is hidden from the viewer. */
export async function findVisibleProject(db: ReadDb, id: string, viewer: Viewer): Promise<ProjectRecord | undefined> {
  const record = await projectsSeenBy(db, viewer.userId).where('p.id', '=', id).executeTakeFirst();
  return record && accessOfRecord(record, viewer).visible ? record : undefined;
}

const likePattern = (q: string) => `%${lowercaseAsPostgres(q).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The viewer's projects (as a member) and those of the organizations the viewer
 * administers; every project for a system administrator. Ordered by name, then id.
 */
export async function listVisibleProjects(db: ReadDb, viewer: Viewer, filter: { q?: string | undefined; organizationId?: string | undefined }): Promise<ProjectRecord[]> {
  let query = projectsSeenBy(db, viewer.userId);
  if (!viewer.isSystemAdmin) {
    query = query.where(
      'p.id',
      'in',
      db
        .selectFrom('project_members')
        .select('project_id as id')
        .where('user_id', '=', viewer.userId)
        .union(
          db
            .selectFrom('projects')
            .select('id')
            .where('organization_id', 'in', db.selectFrom('organization_memberships').select('organization_id').where('user_id', '=', viewer.userId).where('role', '=', 'admin')),
        ),
    );
  }
  if (filter.organizationId) query = query.where('p.organization_id', '=', filter.organizationId);
  if (filter.q) query = query.where(sql<boolean>`lower(p.name) like ${likePattern(filter.q)}`);
  return query.orderBy(sql`lower(p.name)`).orderBy('p.id').execute();
}

/** Interface 2.2, for the viewer. */
export function presentProject(record: ProjectRecord, viewer: Viewer) {
  const access = accessOfRecord(record, viewer);
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    organization_id: record.organization_id,
    owner_id: record.owner_id,
    created_at: record.created_at.toISOString(),
    updated_at: record.updated_at.toISOString(),
    member_count: record.member_count,
    root_collection_id: record.root_collection_id,
    effective_flags: access.effectiveFlags,
    is_starred: record.is_starred,
    access_scope: access.accessScope,
    current_user_role: isProjectRole(record.member_role) ? record.member_role : null,
    geobound_enabled: record.geobound_enabled,
    geobound_basis: record.geobound_basis,
    geobound_allowed_countries: record.geobound_allowed_countries,
    geobound_allowed_country_set: record.geobound_allowed_country_set,
    geobound_denied_country_set: record.geobound_denied_country_set,
    geobound_block_vpn: record.geobound_block_vpn,
    geobound_fail_closed: record.geobound_fail_closed,
  };
}

export type ProjectMemberRecord = { user_id: string; name: string; email: string; role: string; created_at: Date; updated_at: Date };

function membersQuery(db: ReadDb, projectId: string) {
  return db
    .selectFrom('project_members as pm')
    .innerJoin('users as u', 'u.id', 'pm.user_id')
    .select(['pm.user_id', 'u.name', 'u.email', 'pm.role', 'pm.created_at', 'pm.updated_at'])
    .where('pm.project_id', '=', projectId);
}

/** Ordered by name, then user id. */
export async function listProjectMembers(db: ReadDb, projectId: string): Promise<ProjectMemberRecord[]> {
  return membersQuery(db, projectId).orderBy(sql`lower(u.name)`).orderBy('pm.user_id').execute();
}

export async function findProjectMember(db: ReadDb, projectId: string, userId: string): Promise<ProjectMemberRecord | undefined> {
  return membersQuery(db, projectId).where('pm.user_id', '=', userId).executeTakeFirst();
}

export function presentProjectMember(record: ProjectMemberRecord) {
  return {
    user_id: record.user_id,
    name: record.name,
    email: record.email,
    role: record.role,
    created_at: record.created_at.toISOString(),
    updated_at: record.updated_at.toISOString(),
  };
}

/** The user's membership of an organization: null when the organization does not exist, role null when not a member. */
export async function organizationStanding(db: ReadDb, organizationId: string, userId: string): Promise<{ role: string | null } | null> {
  const row = await db
    .selectFrom('organizations as o')
    .leftJoin('organization_memberships as om', (join) => join.onRef('om.organization_id', '=', 'o.id').on('om.user_id', '=', userId))
    .select(['o.id', 'om.role'])
    .where('o.id', '=', organizationId)
    .executeTakeFirst();
  return row ? { role: row.role } : null;
}

export async function isActiveUser(db: ReadDb, userId: string): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('id', '=', userId).where('is_active', '=', true).executeTakeFirst();
  return row !== undefined;
}

/** The facts a project's restriction is judged on, besides the request itself. */
export type GeoFactRows = {
  /** The country sets the projects reference. */
  readonly sets: readonly { readonly id: string; readonly organization_id: string; readonly kind: string; readonly countries: readonly string[] }[];
  /** The caller's organization memberships with their organizations' countries, earliest first. */
  readonly memberships: readonly { readonly organization_id: string; readonly country: string | null }[];
};

/**
 * The country sets referenced by these projects' restrictions and the caller's
 * memberships, in one query however many projects there are (the list judges every row
 * in memory with what this returns).
 */
export async function geoFactsFor(db: ReadDb, userId: string, records: readonly ProjectRecord[]): Promise<GeoFactRows> {
  const setIds = [
    ...new Set(records.filter((r) => r.geobound_enabled).flatMap((r) => [r.geobound_allowed_country_set, r.geobound_denied_country_set].filter((id): id is string => id !== null))),
  ];
  const row = await db
    .selectNoFrom((eb) => [
      jsonArrayFrom(eb.selectFrom('country_sets').select(['id', 'organization_id', 'kind', 'countries']).where(sql<boolean>`id = any(${setIds})`)).as('sets'),
      jsonArrayFrom(
        eb
          .selectFrom('organization_memberships as om')
          .innerJoin('organizations as o', 'o.id', 'om.organization_id')
          .select(['om.organization_id', 'o.country', sql<number>`row_number() over (order by om.created_at, om.organization_id)`.as('rank')])
          .where('om.user_id', '=', userId),
      ).as('memberships'),
    ])
    .executeTakeFirstOrThrow();
  // json_agg keeps no order it was not told to keep: the rank restores the earliest-first order.
  return { sets: row.sets, memberships: [...row.memberships].sort((a, b) => a.rank - b.rank) };
}

/** The project's restriction with its named sets resolved (a set that is gone, or not of the project's organization, makes it incomplete). */
export function geoPolicyOf(record: ProjectRecord, facts: Pick<GeoFactRows, 'sets'>): GeoPolicy {
  const resolve = (id: string | null, kind: 'allowed' | 'denied') => {
    if (id === null) return { countries: [] as readonly string[], missing: false };
    const set = facts.sets.find((s) => s.id === id && s.kind === kind && s.organization_id === record.organization_id);
    return set ? { countries: set.countries, missing: false } : { countries: [] as readonly string[], missing: true };
  };
  const allowedSet = resolve(record.geobound_allowed_country_set, 'allowed');
  const deniedSet = resolve(record.geobound_denied_country_set, 'denied');
  return {
    enabled: record.geobound_enabled,
    basis: record.geobound_basis as GeoBasis,
    allowedCountries: [...new Set([...record.geobound_allowed_countries, ...allowedSet.countries])],
    deniedCountries: deniedSet.countries,
    blockVpn: record.geobound_block_vpn,
    failClosed: record.geobound_fail_closed,
    incomplete: allowedSet.missing || deniedSet.missing,
  };
}

/**
 * The caller's affiliation country for a project: the country of the project's
 * organization when the caller is a member of it, even when that organization has none
 * (then it is unknown, and `geobound_fail_closed` decides); otherwise that of the caller's
 * earliest organization membership that has a country; null when none has one.
 */
export function affiliationCountryOf(facts: Pick<GeoFactRows, 'memberships'>, projectOrganizationId: string): string | null {
  const own = facts.memberships.find((m) => m.organization_id === projectOrganizationId);
  if (own) return own.country;
  return facts.memberships.find((m) => m.country !== null)?.country ?? null;
}

/** The project with what the viewer is in it, visible to the viewer or not (the geographic check of assets it owns). */
export async function findProjectRecord(db: ReadDb, id: string, viewerId: string): Promise<ProjectRecord | undefined> {
  return projectsSeenBy(db, viewerId).where('p.id', '=', id).executeTakeFirst();
}

/** Every project whose geographic restriction is on (a partial index keeps this cheap while there are few). */
export async function restrictedProjects(db: ReadDb, viewerId: string): Promise<ProjectRecord[]> {
  return projectsSeenBy(db, viewerId).where('p.geobound_enabled', '=', true).execute();
}
