import type { UserEmailEvent, UserEvent } from './events.ts';

export type UserState =
  | { readonly status: 'absent' }
  | { readonly status: 'registered'; readonly email: string; readonly isSystemAdmin: boolean };

export const initialUserState: UserState = { status: 'absent' };

export function evolveUser(_state: UserState, event: UserEvent): UserState {
  return { status: 'registered', email: event.data.email, isSystemAdmin: event.data.isSystemAdmin };
}

export type UserEmailState = { readonly holder: string | null };

export const initialUserEmailState: UserEmailState = { holder: null };

export function evolveUserEmail(_state: UserEmailState, event: UserEmailEvent): UserEmailState {
  return { holder: event.data.userId };
}
