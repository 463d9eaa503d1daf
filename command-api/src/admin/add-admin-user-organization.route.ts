import { DomainError, organizations, type OrganizationId, type UserId } from '@cairn/domain';
import { addAdminUserOrganization } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { findRegistration, requireSystemAdmin } from './system-admin-only.ts';

function unknownOrganization(error: unknown): never {
  if (error instanceof DomainError && error.kind === 'not_found') throw httpErrors.unknownReference('organization_id', 'The organization was not found.');
  throw error;
}

export const addAdminUserOrganizationRoute = (deps: CommandDeps) =>
  implement(addAdminUserOrganization, async ({ params, body, context }) => {
    requireSystemAdmin(context);
    const userId = params['id'] as UserId;
    if (!(await findRegistration(deps.eventStore, userId))) throw httpErrors.notFound('User not found.');
    const organizationId = body.organization_id.toLowerCase() as OrganizationId;
    return runCommand(
      deps,
      context,
      {
        decider: organizations.organizationDecider,
        stream: organizations.organizationStream(organizationId),
        command: { type: 'AddOrganizationMember', organizationId, userId, role: body.role },
        // The only thing this command can find missing is the organization the body names.
        onError: unknownOrganization,
      },
      { status: 201 },
    );
  });
