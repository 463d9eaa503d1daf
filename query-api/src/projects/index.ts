import type { BoundOperation } from '@cairn/platform';
import type { QueryDeps } from '../deps.ts';
import { getProjectRoute } from './get-project.route.ts';
import { listProjectMembersRoute } from './list-project-members.route.ts';
import { listProjectsRoute } from './list-projects.route.ts';

export function projectQueryRoutes(deps: QueryDeps): BoundOperation[] {
  return [listProjectsRoute(deps), getProjectRoute(deps), listProjectMembersRoute(deps)];
}
