import { createLogger, evaluateGeoPolicy, httpErrors, unconfiguredGeoService, type Caller, type ClientRequest, type GeoService } from '@cairn/platform';
import type { ReadDb } from '../schema.ts';
import { affiliationCountryOf, findVisibleProject, geoFactsFor, geoPolicyOf, type ProjectRecord, type Viewer } from './projects.read.ts';

export type ProjectGateDeps = { readonly db: ReadDb; readonly geo?: GeoService | undefined };

// Deployments that wire no geo service still enforce: no country is known, so fail-closed policies deny.
export const geoOf = (deps: ProjectGateDeps) => deps.geo ?? unconfiguredGeoService(createLogger('warn'));

/**
 * Every route under /api/projects/{id}/ passes here first, on both sides: a project the
 * caller may not see is 404 (DECISIONS.md 1); then the project's geographic restriction is
 * enforced on the request (403 `geo_restricted`), before any role check, so that a caller
 * from outside the allowed area learns nothing more. System administrators are not exempt.
 */
export async function openProject(deps: ProjectGateDeps, projectId: string, caller: Caller | null, request: ClientRequest): Promise<ProjectRecord> {
  if (!caller) throw httpErrors.unauthenticated();
  const record = await findVisibleProject(deps.db, projectId, caller);
  if (!record) throw httpErrors.notFound('Project not found.');
  if (record.geobound_enabled) {
    const facts = await geoFactsFor(deps.db, caller.userId, [record]);
    await geoOf(deps).enforce({
      request,
      policy: geoPolicyOf(record, facts),
      affiliationCountry: async () => affiliationCountryOf(facts, record.organization_id),
      subject: { projectId: record.id, userId: caller.userId },
    });
  }
  return record;
}

/**
 * The project list keeps out the restricted projects whose restriction denies this
 * request (the restriction covers the project's name and fields too): the request is
 * located once, the facts of every listed project come in one query, and each row is
 * judged in memory. Such a row is left out silently, not logged: a list is not an attempt
 * on any one project, and logging each row would flood the log on every listing.
 */
export async function withoutGeoDenied(deps: ProjectGateDeps, viewer: Viewer, request: ClientRequest, records: readonly ProjectRecord[]): Promise<ProjectRecord[]> {
  if (!records.some((r) => r.geobound_enabled)) return [...records];
  const location = geoOf(deps).locate(request);
  const facts = await geoFactsFor(deps.db, viewer.userId, records);
  return records.filter(
    (record) =>
      !record.geobound_enabled ||
      evaluateGeoPolicy(geoPolicyOf(record, facts), { ...location, affiliationCountry: affiliationCountryOf(facts, record.organization_id) }).allowed,
  );
}
