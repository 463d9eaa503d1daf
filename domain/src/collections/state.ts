import { assertNever } from '../shared/decider.ts';
import type { PermissionEntry } from '../assets/events.ts';
import type { CollectionDetails, CollectionEvent, CollectionOwnerType } from './events.ts';

export type CollectionState =
  | { readonly status: 'absent' }
  | {
      readonly status: 'active';
      readonly isRoot: boolean;
      readonly ownerType: CollectionOwnerType;
      readonly ownerProjectId: string | null;
      readonly ownerUserId: string | null;
      readonly parentId: string | null;
      readonly details: CollectionDetails;
      readonly entries: readonly PermissionEntry[];
      readonly revision: number;
    }
  | { readonly status: 'deleted' };

export const initialState: CollectionState = { status: 'absent' };

export function evolve(state: CollectionState, event: CollectionEvent): CollectionState {
  if (event.type === 'CollectionCreated') {
    const { id: _id, parentId, ownerType, ownerUserId, ownerProjectId, isRoot, revision, ...details } = event.data;
    return { status: 'active', isRoot, ownerType, ownerUserId, ownerProjectId, parentId, details, entries: [], revision: revision ?? 1 };
  }
  if (state.status !== 'active') return state;
  switch (event.type) {
    case 'CollectionUpdated':
      return { ...state, details: { ...state.details, ...event.data.changes }, revision: event.data.revision };
    case 'CollectionMoved':
      return { ...state, parentId: event.data.parentId, revision: event.data.revision };
    case 'CollectionPermissionsSet':
      return { ...state, entries: event.data.entries, revision: event.data.revision };
    case 'CollectionDeleted':
      return { status: 'deleted' };
    default:
      return assertNever(event);
  }
}

/**
 * The provenance token of a revision: opaque to clients (interface 2.3), the same wherever
 * it is computed (the projection stores it, the decider checks If-Match against it).
 * FNV-1a, 64 bits, in hex.
 */
export function provenanceToken(id: string, revision: number): string {
  let hash = 0xcbf29ce484222325n;
  for (const char of `${id}:${revision}`) {
    hash ^= BigInt(char.codePointAt(0) ?? 0);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}
