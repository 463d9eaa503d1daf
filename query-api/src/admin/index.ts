import type { BoundOperation } from '@cairn/platform';
import type { QueryDeps } from '../deps.ts';
import { getAdminUserRoute } from './get-admin-user.route.ts';
import { listAdminUsersRoute } from './list-admin-users.route.ts';
import { listAuditRoute } from './list-audit.route.ts';

export function adminQueryRoutes(deps: QueryDeps): BoundOperation[] {
  return [listAdminUsersRoute(deps), getAdminUserRoute(deps), listAuditRoute(deps)];
}
