import { assertNever } from '../shared/decider.ts';
import type { CollectionEvent } from './events.ts';

export type CollectionState =
  | { readonly status: 'absent' }
  | { readonly status: 'active'; readonly isRoot: boolean; readonly ownerProjectId: string | null }
  | { readonly status: 'deleted' };

export const initialState: CollectionState = { status: 'absent' };

export function evolve(_state: CollectionState, event: CollectionEvent): CollectionState {
  switch (event.type) {
    case 'CollectionCreated':
      return { status: 'active', isRoot: event.data.isRoot, ownerProjectId: event.data.ownerProjectId };
    case 'CollectionDeleted':
      return { status: 'deleted' };
    default:
      return assertNever(event);
  }
}
