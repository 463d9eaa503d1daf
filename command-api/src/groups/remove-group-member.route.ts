import { groups, type UserId } from '@cairn/domain';
import { removeGroupMember } from '@cairn/contract';
import { executeCommand, implement } from '@cairn/platform';
import { findOrganizationMembershipId } from '@cairn/projections';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { readGroupAccess } from './group-access.ts';

export const removeGroupMemberRoute = (deps: CommandDeps) =>
  implement(removeGroupMember, async ({ params, context }) => {
    const id = (params['id'] ?? '') as groups.GroupId;
    const userId = (params['user_id'] ?? '') as UserId;
    const { access, organizationId } = await readGroupAccess(deps.db, id, context.caller);
    const membershipId = organizationId ? await findOrganizationMembershipId(deps.db, organizationId, userId) : null;
    const outcome = await executeCommand(
      deps.eventStore,
      groups.groupDecider,
      groups.groupStream(id),
      { type: 'RemoveGroupMember', id, userId, membershipId, access },
      commandContext(context),
      commandMetadata(context),
    );
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    return { status: 204, position: outcome.position };
  });
