import { groups, type OrganizationId } from '@cairn/domain';
import { createGroup } from '@cairn/contract';
import { executeCommand, httpErrors, implement } from '@cairn/platform';
import { findGroup, findOrganizationRole, organizationExists, presentGroup } from '@cairn/projections';
import { randomUUID } from 'node:crypto';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { asFieldError } from './group-access.ts';

export const createGroupRoute = (deps: CommandDeps) =>
  implement(createGroup, async ({ body, context }) => {
    const id = randomUUID() as groups.GroupId;
    const organizationId = body.organization_id.toLowerCase() as OrganizationId;
    const exists = await organizationExists(deps.db, organizationId);
    const callerRole = exists && context.caller ? await findOrganizationRole(deps.db, organizationId, context.caller.userId) : null;
    const outcome = await executeCommand(
      deps.eventStore,
      groups.groupDecider,
      groups.groupStream(id),
      { type: 'CreateGroup', id, organizationId, name: body.name, description: body.description, organization: { exists, callerRole } },
      commandContext(context),
      commandMetadata(context),
    ).catch(asFieldError('unknown_organization', 'organization_id', 'Unknown organization, or you are not a member of it.'));
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    const row = await findGroup(deps.db, id);
    if (!row) throw httpErrors.notFound();
    return { status: 201, body: presentGroup(row), position: outcome.position, headers: { Location: `/api/groups/${id}/` } };
  });
