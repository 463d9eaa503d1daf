import { getProject } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { openProject, presentProject } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

export const getProjectRoute = (deps: QueryDeps) =>
  implement(getProject, async ({ params, context, req }) => {
    const caller = context.caller;
    if (!caller) throw httpErrors.unauthenticated();
    const project = await openProject(deps, params['id'] ?? '', caller, req);
    return { status: 200, body: presentProject(project, caller) };
  });
