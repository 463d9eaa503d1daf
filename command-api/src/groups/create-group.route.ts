import { groups, type OrganizationId } from '@cairn/domain';
import { createGroup } from '@cairn/contract';
import { implement, newId } from '@cairn/platform';
import { findGroup, findOrganizationRole, organizationExists, presentGroup } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { asUnknownReference } from './group-access.ts';

export const createGroupRoute = (deps: CommandDeps) =>
  implement(createGroup, async ({ body, context }) => {
    const id = newId(context) as groups.GroupId;
    const organizationId = body.organization_id.toLowerCase() as OrganizationId;
    const exists = await organizationExists(deps.db, organizationId);
    const callerRole = exists && context.caller ? await findOrganizationRole(deps.db, organizationId, context.caller.userId) : null;
    return runCommand(
      deps,
      context,
      {
        decider: groups.groupDecider,
        stream: groups.groupStream(id),
        newStream: true,
        command: { type: 'CreateGroup', id, organizationId, name: body.name, description: body.description, organization: { exists, callerRole } },
        onError: asUnknownReference('unknown_organization', 'organization_id', 'The organization was not found.'),
      },
      { status: 201, read: () => findGroup(deps.db, id), present: presentGroup, headers: { Location: `/api/groups/${id}/` } },
    );
  });
