import { assertNever } from '../shared/decider.ts';
import type { OrganizationEvent, OrganizationRole } from './events.ts';

export type OrganizationState =
  | { readonly status: 'absent' }
  | { readonly status: 'active'; readonly members: ReadonlyMap<string, OrganizationRole> };

export const initialOrganizationState: OrganizationState = { status: 'absent' };

export function evolveOrganization(state: OrganizationState, event: OrganizationEvent): OrganizationState {
  switch (event.type) {
    case 'OrganizationCreated':
      return { status: 'active', members: new Map() };
    case 'OrganizationMemberAdded': {
      if (state.status !== 'active') return state;
      const members = new Map(state.members);
      members.set(event.data.userId, event.data.role);
      return { status: 'active', members };
    }
    default:
      return assertNever(event);
  }
}
