import type { BoundOperation } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { createOrganizationRoute } from './create-organization.route.ts';
import { updateOrganizationRoute } from './update-organization.route.ts';

export function organizationCommandRoutes(deps: CommandDeps): BoundOperation[] {
  return [createOrganizationRoute(deps), updateOrganizationRoute(deps)];
}
