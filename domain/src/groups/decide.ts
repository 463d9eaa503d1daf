import type { CommandContext } from '../shared/command-context.ts';
import { assertNever, type Decider } from '../shared/decider.ts';
import type { GroupAccess, GroupCommand } from './commands.ts';
import { groupErrors } from './errors.ts';
import type { GroupEvent, GroupId } from './events.ts';
import { evolveGroup, initialGroupState, type GroupState } from './state.ts';

/** Interface 2.4 and section 8. */
export const groupNameMaxLength = 255;
export const groupDescriptionMaxLength = 2000;

type ActiveGroup = Extract<GroupState, { status: 'active' }>;

export function decideGroup(command: GroupCommand, state: GroupState, context: CommandContext): readonly GroupEvent[] {
  switch (command.type) {
    case 'CreateGroup': {
      const { organization } = command;
      // DECISIONS.md 1: an organization the caller does not belong to answers like one that does not exist.
      if (!organization.exists || (!context.actor.isSystemAdmin && organization.callerRole === null)) throw groupErrors.unknownOrganization();
      if (!context.actor.isSystemAdmin && organization.callerRole !== 'admin') throw groupErrors.adminOnly();
      if (state.status !== 'absent') throw groupErrors.alreadyExists();
      const name = validName(command.name);
      const description = validDescription(command.description);
      return [{ type: 'GroupCreated', data: { id: command.id, organizationId: command.organizationId, name, description } }];
    }
    case 'ChangeGroup': {
      const group = changeableGroup(state, command.access, context);
      const events: GroupEvent[] = [];
      if (command.name !== undefined) {
        const name = validName(command.name);
        if (name !== group.name) events.push({ type: 'GroupRenamed', data: { id: command.id, name } });
      }
      if (command.description !== undefined) {
        const description = validDescription(command.description);
        if (description !== group.description) events.push({ type: 'GroupDescribed', data: { id: command.id, description } });
      }
      return events;
    }
    case 'DeleteGroup':
      writableGroup(state, command.access, context);
      return [{ type: 'GroupDeleted', data: { id: command.id } }];
    case 'AddGroupMember': {
      const group = writableGroup(state, command.access, context);
      if (command.membershipId === null) throw groupErrors.notOrganizationMember();
      if (group.members.get(command.userId) === command.membershipId) throw groupErrors.alreadyMember();
      return [{ type: 'GroupMemberAdded', data: { groupId: command.id, userId: command.userId, membershipId: command.membershipId } }];
    }
    case 'RemoveGroupMember': {
      const group = writableGroup(state, command.access, context);
      // A membership taken under an organization membership that has since ended is over already.
      if (command.membershipId === null || group.members.get(command.userId) !== command.membershipId) throw groupErrors.memberNotFound();
      return [{ type: 'GroupMemberRemoved', data: { groupId: command.id, userId: command.userId } }];
    }
    default:
      return assertNever(command);
  }
}

/**
 * The order of the answers matters: unknown and hidden groups are 404 alike, then a
 * member who is not an admin is refused, and only then does a members group say that its
 * membership cannot be changed, so that it reveals nothing to those who may not write.
 */
function writableGroup(state: GroupState, access: GroupAccess, context: CommandContext): ActiveGroup {
  if (state.status !== 'active' && !access.membersGroup) throw groupErrors.notFound();
  mayWrite(access, context);
  if (access.membersGroup || state.status !== 'active') throw groupErrors.membersGroupManaged();
  return state;
}

/**
 * Name and description: a members group may be renamed (and described) by whoever may
 * rename groups (DECISIONS §8, interface 4.6 lists no exception); only its membership and
 * its existence stay the organization's.
 */
function changeableGroup(state: GroupState, access: GroupAccess, context: CommandContext): { readonly name: string; readonly description: string } {
  if (!access.membersGroup) return writableGroup(state, access, context);
  mayWrite(access, context);
  return access.membersGroup;
}

function mayWrite(access: GroupAccess, context: CommandContext): void {
  if (context.actor.isSystemAdmin) return;
  if (access.callerRole === null) throw groupErrors.notFound();
  if (access.callerRole !== 'admin') throw groupErrors.adminOnly();
}

function validName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > groupNameMaxLength) throw groupErrors.invalidName(groupNameMaxLength);
  return trimmed;
}

function validDescription(description: string): string {
  const trimmed = description.trim();
  if (trimmed.length > groupDescriptionMaxLength) throw groupErrors.invalidDescription(groupDescriptionMaxLength);
  return trimmed;
}

export const groupDecider: Decider<GroupCommand, GroupEvent, GroupState> = {
  initialState: initialGroupState,
  evolve: evolveGroup,
  decide: decideGroup,
};

export const groupStream = (id: GroupId | string) => `group-${id}`;
