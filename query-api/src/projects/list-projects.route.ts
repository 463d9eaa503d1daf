import { listProjects } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { listVisibleProjects, presentProject, withoutGeoDenied } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

/** Restricted projects whose restriction denies this request are left out of the list (docs/projects.md). */
export const listProjectsRoute = (deps: QueryDeps) =>
  implement(listProjects, async ({ query, context, req }) => {
    const caller = context.caller;
    if (!caller) throw httpErrors.unauthenticated();
    const rows = await listVisibleProjects(deps.db, caller, { q: query.q, organizationId: query.organization_id?.toLowerCase() });
    const allowed = await withoutGeoDenied(deps, caller, req, rows);
    return { status: 200, body: allowed.map((row) => presentProject(row, caller)) };
  });
