import type { BoundOperation } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { addAdminUserOrganizationRoute } from './add-admin-user-organization.route.ts';
import { changeAdminUserOrganizationRoleRoute } from './change-admin-user-organization-role.route.ts';
import { removeAdminUserOrganizationRoute } from './remove-admin-user-organization.route.ts';
import { updateAdminUserRoute } from './update-admin-user.route.ts';

export function adminCommandRoutes(deps: CommandDeps): BoundOperation[] {
  return [updateAdminUserRoute(deps), addAdminUserOrganizationRoute(deps), changeAdminUserOrganizationRoleRoute(deps), removeAdminUserOrganizationRoute(deps)];
}
