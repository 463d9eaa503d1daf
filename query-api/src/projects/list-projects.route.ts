import { listProjects } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { listVisibleProjects, presentProject } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

/** The list is not subject to projects' geographic restrictions (docs/projects.md): it shows names, not contents. */
export const listProjectsRoute = (deps: QueryDeps) =>
  implement(listProjects, async ({ query, context }) => {
    const caller = context.caller;
    if (!caller) throw httpErrors.unauthenticated();
    const rows = await listVisibleProjects(deps.db, caller, { q: query.q, organizationId: query.organization_id?.toLowerCase() });
    return { status: 200, body: rows.map((row) => presentProject(row, caller)) };
  });
