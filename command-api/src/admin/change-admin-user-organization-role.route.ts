import { organizations, type OrganizationId, type UserId } from '@cairn/domain';
import { changeAdminUserOrganizationRole } from '@cairn/contract';
import { implement } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { requireSystemAdmin } from './system-admin-only.ts';

export const changeAdminUserOrganizationRoleRoute = (deps: CommandDeps) =>
  implement(changeAdminUserOrganizationRole, async ({ params, body, context }) => {
    requireSystemAdmin(context);
    const organizationId = params['org_pk'] as OrganizationId;
    return runCommand(
      deps,
      context,
      { decider: organizations.organizationDecider, stream: organizations.organizationStream(organizationId), command: { type: 'ChangeOrganizationMemberRole', organizationId, userId: params['id'] as UserId, role: body.role } },
      { status: 200 },
    );
  });
