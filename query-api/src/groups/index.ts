import type { BoundOperation } from '@cairn/platform';
import type { QueryDeps } from '../deps.ts';
import { getGroupRoute } from './get-group.route.ts';
import { listGroupMembersRoute } from './list-group-members.route.ts';
import { listGroupsRoute } from './list-groups.route.ts';

/** The reads of interface 4.6 and docs/groups.md. */
export function groupQueryRoutes(deps: QueryDeps): BoundOperation[] {
  return [listGroupsRoute(deps), getGroupRoute(deps), listGroupMembersRoute(deps)];
}
