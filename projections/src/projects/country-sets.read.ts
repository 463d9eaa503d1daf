import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';
import type { Viewer } from './projects.read.ts';

export type CountrySetRecord = {
  id: string;
  organization_id: string;
  name: string;
  kind: string;
  countries: string[];
  created_at: Date;
  updated_at: Date;
  /** The viewer's role in the set's organization. */
  organization_role: string | null;
};

function countrySetsSeenBy(db: ReadDb, viewerId: string) {
  return db
    .selectFrom('country_sets as cs')
    .leftJoin('organization_memberships as om', (join) => join.onRef('om.organization_id', '=', 'cs.organization_id').on('om.user_id', '=', viewerId))
    .select(['cs.id', 'cs.organization_id', 'cs.name', 'cs.kind', 'cs.countries', 'cs.created_at', 'cs.updated_at', 'om.role as organization_role']);
}

/** Members of the set's organization and system administrators see it; undefined otherwise. */
export async function findVisibleCountrySet(db: ReadDb, id: string, viewer: Viewer): Promise<CountrySetRecord | undefined> {
  const record = await countrySetsSeenBy(db, viewer.userId).where('cs.id', '=', id).executeTakeFirst();
  return record && (viewer.isSystemAdmin || record.organization_role !== null) ? record : undefined;
}

/** The sets of the viewer's organizations (every set for a system administrator), ordered by name, then id. */
export async function listVisibleCountrySets(
  db: ReadDb,
  viewer: Viewer,
  filter: { organizationId?: string | undefined; kind?: string | undefined },
): Promise<CountrySetRecord[]> {
  let query = countrySetsSeenBy(db, viewer.userId);
  if (!viewer.isSystemAdmin) query = query.where('om.user_id', 'is not', null);
  if (filter.organizationId) query = query.where('cs.organization_id', '=', filter.organizationId);
  if (filter.kind) query = query.where('cs.kind', '=', filter.kind);
  return query.orderBy(sql`lower(cs.name)`).orderBy('cs.id').execute();
}

/** A set as a project's reference to it needs it: in the organization, of the kind. */
export async function findCountrySetOf(db: ReadDb, id: string, organizationId: string) {
  return db.selectFrom('country_sets').select(['id', 'kind']).where('id', '=', id).where('organization_id', '=', organizationId).executeTakeFirst();
}

export async function countProjectsReferencing(db: ReadDb, setId: string): Promise<number> {
  const row = await db
    .selectFrom('projects')
    .select(sql<number>`count(*)::int`.as('count'))
    .where((eb) => eb.or([eb('geobound_allowed_country_set', '=', setId), eb('geobound_denied_country_set', '=', setId)]))
    .executeTakeFirst();
  return row?.count ?? 0;
}

export function presentCountrySet(record: CountrySetRecord) {
  return {
    id: record.id,
    organization_id: record.organization_id,
    name: record.name,
    kind: record.kind,
    countries: record.countries,
    created_at: record.created_at.toISOString(),
    updated_at: record.updated_at.toISOString(),
  };
}
