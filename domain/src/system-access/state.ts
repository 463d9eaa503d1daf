import { assertNever } from '../shared/decider.ts';
import type { SystemAccessEvent } from './events.ts';

export type UserAccess = { readonly active: boolean; readonly systemAdmin: boolean };

/** What a registered user has unless the history says otherwise. */
export const plainAccess: UserAccess = { active: true, systemAdmin: false };

/**
 * The access of every user, kept sparse: `users` holds each user who was ever a system
 * administrator or whose access was ever changed; every other registered user has
 * `plainAccess`. The map stays as small as the set of administrators and changed users,
 * so folding a history of many registrations costs no copy per registration.
 */
export type SystemAccessState = { readonly users: ReadonlyMap<string, UserAccess> };

export const initialSystemAccessState: SystemAccessState = { users: new Map() };

export function accessOf(state: SystemAccessState, userId: string): UserAccess {
  return state.users.get(userId) ?? plainAccess;
}

export function activeSystemAdmins(state: SystemAccessState): string[] {
  return [...state.users].filter(([, access]) => access.active && access.systemAdmin).map(([id]) => id);
}

function withAccess(state: SystemAccessState, userId: string, change: Partial<UserAccess>): SystemAccessState {
  const users = new Map(state.users);
  users.set(userId, { ...accessOf(state, userId), ...change });
  return { users };
}

export function evolveSystemAccess(state: SystemAccessState, event: SystemAccessEvent): SystemAccessState {
  switch (event.type) {
    case 'UserAccessEnrolled':
      // A repeated enrollment (a retried registration) must not undo later changes.
      if (state.users.has(event.data.userId) || !event.data.isSystemAdmin) return state;
      return withAccess(state, event.data.userId, { systemAdmin: true });
    case 'UserDeactivated':
      return withAccess(state, event.data.userId, { active: false });
    case 'UserReactivated':
      return withAccess(state, event.data.userId, { active: true });
    case 'SystemAdminGranted':
      return withAccess(state, event.data.userId, { systemAdmin: true });
    case 'SystemAdminRevoked':
      return withAccess(state, event.data.userId, { systemAdmin: false });
    default:
      return assertNever(event);
  }
}
