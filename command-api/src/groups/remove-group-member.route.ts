import { groups, type UserId } from '@cairn/domain';
import { removeGroupMember } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { findOrganizationMembershipId } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { readGroupAccess } from './group-access.ts';

export const removeGroupMemberRoute = (deps: CommandDeps) =>
  implement(removeGroupMember, async ({ params, context }) => {
    const id = (params['id'] ?? '') as groups.GroupId;
    const userId = (params['user_id'] ?? '') as UserId;
    const { access, organizationId } = await readGroupAccess(deps.db, id, context.caller);
    const membershipId = organizationId ? await findOrganizationMembershipId(deps.db, organizationId, userId) : null;
    return runCommand(
      deps,
      context,
      { decider: groups.groupDecider, stream: groups.groupStream(id), command: { type: 'RemoveGroupMember', id, userId, membershipId, access } },
      { status: 204 },
    );
  });
