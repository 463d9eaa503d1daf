import { assertNever } from '../shared/decider.ts';
import type { ProjectDetails, ProjectEvent, ProjectRole } from './events.ts';
import { withEntry, withoutEntry } from '../shared/collections.ts';

export type ProjectState =
  | { readonly status: 'absent' }
  | {
      readonly status: 'active';
      readonly organizationId: string;
      readonly details: ProjectDetails;
      readonly members: ReadonlyMap<string, ProjectRole>;
      readonly stars: ReadonlySet<string>;
    }
  | { readonly status: 'deleted' };

export const initialState: ProjectState = { status: 'absent' };

export function evolve(state: ProjectState, event: ProjectEvent): ProjectState {
  switch (event.type) {
    case 'ProjectCreated': {
      const { id: _id, organizationId, ownerId: _owner, rootCollectionId: _root, ...details } = event.data;
      return { status: 'active', organizationId, details, members: new Map(), stars: new Set() };
    }
    case 'ProjectUpdated':
      return state.status === 'active' ? { ...state, details: { ...state.details, ...event.data.changes } } : state;
    case 'ProjectDeleted':
      return { status: 'deleted' };
    case 'ProjectMemberAdded':
    case 'ProjectMemberRoleChanged': {
      return state.status === 'active' ? { ...state, members: withEntry(state.members, event.data.userId, event.data.role) } : state;
    }
    case 'ProjectMemberRemoved': {
      return state.status === 'active' ? { ...state, members: withoutEntry(state.members, event.data.userId) } : state;
    }
    case 'ProjectStarred':
    case 'ProjectUnstarred': {
      if (state.status !== 'active') return state;
      const stars = new Set(state.stars);
      if (event.type === 'ProjectStarred') stars.add(event.data.userId);
      else stars.delete(event.data.userId);
      return { ...state, stars };
    }
    default:
      return assertNever(event);
  }
}
