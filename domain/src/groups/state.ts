import type { OrganizationId } from '../shared/ids.ts';
import { assertNever } from '../shared/decider.ts';
import type { GroupEvent, OrganizationMembershipId } from './events.ts';
import { withEntry, withoutEntry } from '../shared/collections.ts';

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
      return state.status === 'active' ? { ...state, members: withEntry(state.members, event.data.userId, event.data.membershipId) } : state;
    }
    case 'GroupMemberRemoved': {
      return state.status === 'active' ? { ...state, members: withoutEntry(state.members, event.data.userId) } : state;
    }
    default:
      return assertNever(event);
  }
}
