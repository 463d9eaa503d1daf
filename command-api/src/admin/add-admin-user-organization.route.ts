import { organizations, type OrganizationId, type UserId } from '@cairn/domain';
import { addAdminUserOrganization } from '@cairn/contract';
import { executeCommand, httpErrors, implement } from '@cairn/platform';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { findRegistration, requireSystemAdmin } from './system-admin-only.ts';

export const addAdminUserOrganizationRoute = (deps: CommandDeps) =>
  implement(addAdminUserOrganization, async ({ params, body, context }) => {
    requireSystemAdmin(context);
    const userId = params['id'] as UserId;
    if (!(await findRegistration(deps.eventStore, userId))) throw httpErrors.notFound('User not found.');
    const organizationId = body.organization_id.toLowerCase() as OrganizationId;
    const outcome = await executeCommand(
      deps.eventStore,
      organizations.organizationDecider,
      organizations.organizationStream(organizationId),
      { type: 'AddOrganizationMember', organizationId, userId, role: body.role },
      commandContext(context),
      commandMetadata(context),
    );
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    return { status: 201, position: outcome.position };
  });
