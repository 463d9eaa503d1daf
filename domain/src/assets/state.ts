import { assertNever } from '../shared/decider.ts';
import type { AssetDetails, AssetEvent, AssetOwner, PermissionEntry } from './events.ts';
import { evolveMigrations, noMigrations, type Migrations } from './migrations.ts';

export type AssetState =
  | { readonly status: 'absent' }
  | { readonly status: 'deleted' }
  | {
      readonly status: 'active';
      readonly createdAt: string;
      readonly details: AssetDetails;
      readonly owner: AssetOwner;
      readonly entries: readonly PermissionEntry[];
      readonly stars: ReadonlySet<string>;
      readonly lock: { readonly reason: string; readonly by: string | null } | null;
      readonly collections: readonly string[];
      readonly migrations: Migrations;
    };

export const initialState: AssetState = { status: 'absent' };

export function evolve(state: AssetState, event: AssetEvent): AssetState {
  if (event.type === 'AssetCreated') {
    const { id: _id, createdAt, collectionId, ownerType, ownerId, ...details } = event.data;
    return { status: 'active', createdAt, details, owner: { ownerType, ownerId }, entries: [], stars: new Set(), lock: null, collections: collectionId ? [collectionId] : [], migrations: noMigrations };
  }
  if (state.status !== 'active') return state;
  switch (event.type) {
    case 'AssetUpdated':
      return { ...state, details: { ...state.details, ...event.data.changes } };
    case 'AssetOwnerChanged':
      return { ...state, owner: { ownerType: event.data.ownerType, ownerId: event.data.ownerId } };
    case 'AssetDeleted':
      return { status: 'deleted' };
    case 'AssetPermissionsSet':
      return { ...state, entries: event.data.entries };
    case 'AssetStarred':
      return { ...state, stars: new Set([...state.stars, event.data.userId]) };
    case 'AssetUnstarred':
      return { ...state, stars: new Set([...state.stars].filter((u) => u !== event.data.userId)) };
    case 'AssetLocked':
      return { ...state, lock: { reason: event.data.reason, by: event.data.lockedBy } };
    case 'AssetUnlocked':
      return { ...state, lock: null };
    case 'AssetCollectionsChanged':
      return { ...state, collections: event.data.collectionIds };
    case 'AssetMigrationStarted':
    case 'AssetMigrationRunning':
    case 'AssetMigrationFailed':
    case 'AssetMigrationRetried':
    case 'AssetMigrationSucceeded':
      return { ...state, migrations: evolveMigrations(state.migrations, event) };
    default:
      return assertNever(event);
  }
}
