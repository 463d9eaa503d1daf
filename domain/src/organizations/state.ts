import { assertNever } from '../shared/decider.ts';
import type { OrganizationEvent, OrganizationRole } from './events.ts';
import { withEntry, withoutEntry } from '../shared/collections.ts';

export type OrganizationState =
  | { readonly status: 'absent' }
  | {
      readonly status: 'active';
      readonly name: string;
      readonly country: string | null;
      readonly members: ReadonlyMap<string, OrganizationRole>;
    };

export const initialOrganizationState: OrganizationState = { status: 'absent' };

export function evolveOrganization(state: OrganizationState, event: OrganizationEvent): OrganizationState {
  switch (event.type) {
    case 'OrganizationCreated':
      return { status: 'active', name: event.data.name, country: event.data.country, members: new Map() };
    case 'OrganizationRenamed':
      return state.status === 'active' ? { ...state, name: event.data.name } : state;
    case 'OrganizationCountryChanged':
      return state.status === 'active' ? { ...state, country: event.data.country } : state;
    case 'OrganizationMemberAdded':
    case 'OrganizationMemberRoleChanged': {
      return state.status === 'active' ? { ...state, members: withEntry(state.members, event.data.userId, event.data.role) } : state;
    }
    case 'OrganizationMemberRemoved': {
      return state.status === 'active' ? { ...state, members: withoutEntry(state.members, event.data.userId) } : state;
    }
    default:
      return assertNever(event);
  }
}
