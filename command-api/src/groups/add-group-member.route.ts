import { groups, type UserId } from '@cairn/domain';
import { addGroupMember } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { findGroupMember, findOrganizationMembershipId, presentGroupMember } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { asUnknownReference, readGroupAccess } from './group-access.ts';

export const addGroupMemberRoute = (deps: CommandDeps) =>
  implement(addGroupMember, async ({ params, body, context }) => {
    const id = (params['id'] ?? '') as groups.GroupId;
    const userId = body.user_id.toLowerCase() as UserId;
    const { access, organizationId } = await readGroupAccess(deps.db, id, context.caller);
    const membershipId = organizationId ? await findOrganizationMembershipId(deps.db, organizationId, userId) : null;
    return runCommand(
      deps,
      context,
      {
        decider: groups.groupDecider,
        stream: groups.groupStream(id),
        command: { type: 'AddGroupMember', id, userId, membershipId, access },
        onError: asUnknownReference('not_organization_member', 'user_id', "The user was not found among the members of the group's organization."),
      },
      { status: 201, read: () => findGroupMember(deps.db, id, userId), present: presentGroupMember },
    );
  });
