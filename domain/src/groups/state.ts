import type { OrganizationId } from '../shared/ids.ts';
import { assertNever } from '../shared/decider.ts';
import type { GroupEvent, OrganizationMembershipId } from './events.ts';

export type GroupState =
  | { readonly status: 'absent' }
  | {
      readonly status: 'active';
      readonly organizationId: OrganizationId;
      readonly name: string;
      readonly description: string;
      /** User id to the organization membership under which the user was added. */
      readonly members: ReadonlyMap<string, OrganizationMembershipId>;
    }
  | { readonly status: 'deleted' };

export const initialGroupState: GroupState = { status: 'absent' };

export function evolveGroup(state: GroupState, event: GroupEvent): GroupState {
  switch (event.type) {
    case 'GroupCreated': {
      const { organizationId, name, description } = event.data;
      return { status: 'active', organizationId, name, description, members: new Map() };
    }
    case 'GroupRenamed':
      return state.status === 'active' ? { ...state, name: event.data.name } : state;
    case 'GroupDescribed':
      return state.status === 'active' ? { ...state, description: event.data.description } : state;
    case 'GroupDeleted':
      return { status: 'deleted' };
    case 'GroupMemberAdded': {
      if (state.status !== 'active') return state;
      const members = new Map(state.members);
      members.set(event.data.userId, event.data.membershipId);
      return { ...state, members };
    }
    case 'GroupMemberRemoved': {
      if (state.status !== 'active') return state;
      const members = new Map(state.members);
      members.delete(event.data.userId);
      return { ...state, members };
    }
    default:
      return assertNever(event);
  }
}
