import { organizations, type OrganizationId, type UserId } from '@cairn/domain';
import { changeAdminUserOrganizationRole } from '@cairn/contract';
import { executeCommand, implement } from '@cairn/platform';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { requireSystemAdmin } from './system-admin-only.ts';

export const changeAdminUserOrganizationRoleRoute = (deps: CommandDeps) =>
  implement(changeAdminUserOrganizationRole, async ({ params, body, context }) => {
    requireSystemAdmin(context);
    const organizationId = params['org_pk'] as OrganizationId;
    const outcome = await executeCommand(
      deps.eventStore,
      organizations.organizationDecider,
      organizations.organizationStream(organizationId),
      { type: 'ChangeOrganizationMemberRole', organizationId, userId: params['id'] as UserId, role: body.role },
      commandContext(context),
      commandMetadata(context),
    );
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    return { status: 200, position: outcome.position };
  });
