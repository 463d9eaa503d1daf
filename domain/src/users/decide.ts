import type { CommandContext } from '../shared/command-context.ts';
import type { Decider } from '../shared/decider.ts';
import { conflict, forbidden, invalid } from '../shared/errors.ts';
import type { RegisterUser, ReserveUserEmail } from './commands.ts';
import type { UserEmailEvent, UserEvent } from './events.ts';
import { evolveUser, evolveUserEmail, initialUserEmailState, initialUserState, type UserEmailState, type UserState } from './state.ts';

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function decideUser(command: RegisterUser, state: UserState, context: CommandContext): readonly UserEvent[] {
  if (!context.actor.isSystemAdmin) throw forbidden('permission_denied', 'Only a system administrator may register users.');
  if (state.status !== 'absent') throw conflict('already_exists', 'A user with this id already exists.');
  const email = normalizeEmail(command.email);
  if (!emailPattern.test(email)) throw invalid('invalid_email', 'The e-mail address is not valid.');
  if (command.name.trim() === '') throw invalid('invalid_name', 'The name must not be blank.');
  return [{ type: 'UserRegistered', data: { id: command.id, email, name: command.name.trim(), isSystemAdmin: command.isSystemAdmin } }];
}

export function decideUserEmail(command: ReserveUserEmail, state: UserEmailState): readonly UserEmailEvent[] {
  if (state.holder !== null && state.holder !== command.userId) throw conflict('email_taken', 'A user with this e-mail address already exists.');
  if (state.holder === command.userId) return [];
  return [{ type: 'UserEmailReserved', data: { email: normalizeEmail(command.email), userId: command.userId } }];
}

export const userDecider: Decider<RegisterUser, UserEvent, UserState> = {
  initialState: initialUserState,
  evolve: evolveUser,
  decide: decideUser,
};

export const userEmailDecider: Decider<ReserveUserEmail, UserEmailEvent, UserEmailState> = {
  initialState: initialUserEmailState,
  evolve: evolveUserEmail,
  decide: (command, state) => decideUserEmail(command, state),
};

export const userStream = (id: string) => `user-${id}`;
export const userEmailStream = (email: string) => `user_email-${normalizeEmail(email)}`;
