import { createLogger, httpErrors, unconfiguredGeoService, type Caller, type ClientRequest, type GeoService } from '@cairn/platform';
import type { ReadDb } from '../schema.ts';
import { affiliationCountry, findVisibleProject, projectGeoPolicy, type ProjectRecord } from './projects.read.ts';

export type ProjectGateDeps = { readonly db: ReadDb; readonly geo?: GeoService | undefined };

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
    // Deployments that wire no geo service still enforce: no country is known, so fail-closed policies deny.
    const geo = deps.geo ?? unconfiguredGeoService(createLogger('warn'));
    await geo.enforce({
      request,
      policy: await projectGeoPolicy(deps.db, record),
      affiliationCountry: () => affiliationCountry(deps.db, caller.userId, record.organization_id),
      subject: { projectId: record.id, userId: caller.userId },
    });
  }
  return record;
}
