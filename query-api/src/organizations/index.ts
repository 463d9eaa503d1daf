import type { BoundOperation } from '@cairn/platform';
import type { QueryDeps } from '../deps.ts';
import { getOrganizationRoute } from './get-organization.route.ts';
import { listOrganizationsRoute } from './list-organizations.route.ts';

export function organizationQueryRoutes(deps: QueryDeps): BoundOperation[] {
  return [listOrganizationsRoute(deps), getOrganizationRoute(deps)];
}
