import { groups, type UserId } from '@cairn/domain';
import { addGroupMember } from '@cairn/contract';
import { executeCommand, httpErrors, implement } from '@cairn/platform';
import { findGroupMember, findOrganizationMembershipId, presentGroupMember } from '@cairn/projections';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { asFieldError, readGroupAccess } from './group-access.ts';

export const addGroupMemberRoute = (deps: CommandDeps) =>
  implement(addGroupMember, async ({ params, body, context }) => {
    const id = (params['id'] ?? '') as groups.GroupId;
    const userId = body.user_id.toLowerCase() as UserId;
    const { access, organizationId } = await readGroupAccess(deps.db, id, context.caller);
    const membershipId = organizationId ? await findOrganizationMembershipId(deps.db, organizationId, userId) : null;
    const outcome = await executeCommand(
      deps.eventStore,
      groups.groupDecider,
      groups.groupStream(id),
      { type: 'AddGroupMember', id, userId, membershipId, access },
      commandContext(context),
      commandMetadata(context),
    ).catch(asFieldError('not_organization_member', 'user_id', "Unknown user, or not a member of the group's organization."));
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    const row = await findGroupMember(deps.db, id, userId);
    if (!row) throw httpErrors.notFound();
    return { status: 201, body: presentGroupMember(row), position: outcome.position };
  });
