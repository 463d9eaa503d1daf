import { organizations, type OrganizationId, type UserId } from '@cairn/domain';
import { removeAdminUserOrganization } from '@cairn/contract';
import { executeCommand, implement } from '@cairn/platform';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { requireSystemAdmin } from './system-admin-only.ts';

export const removeAdminUserOrganizationRoute = (deps: CommandDeps) =>
  implement(removeAdminUserOrganization, async ({ params, context }) => {
    requireSystemAdmin(context);
    const organizationId = params['org_pk'] as OrganizationId;
    const outcome = await executeCommand(
      deps.eventStore,
      organizations.organizationDecider,
      organizations.organizationStream(organizationId),
      { type: 'RemoveOrganizationMember', organizationId, userId: params['id'] as UserId },
      commandContext(context),
      commandMetadata(context),
    );
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    return { status: 204, position: outcome.position };
  });
