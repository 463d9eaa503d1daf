import { organizations, type OrganizationId, type UserId } from '@cairn/domain';
import { removeAdminUserOrganization } from '@cairn/contract';
import { implement } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { requireSystemAdmin } from './system-admin-only.ts';

export const removeAdminUserOrganizationRoute = (deps: CommandDeps) =>
  implement(removeAdminUserOrganization, async ({ params, context }) => {
    requireSystemAdmin(context);
    const organizationId = params['org_pk'] as OrganizationId;
    return runCommand(
      deps,
      context,
      { decider: organizations.organizationDecider, stream: organizations.organizationStream(organizationId), command: { type: 'RemoveOrganizationMember', organizationId, userId: params['id'] as UserId } },
      { status: 204 },
    );
  });
