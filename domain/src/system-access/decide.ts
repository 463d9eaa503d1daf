import type { CommandContext } from '../shared/command-context.ts';
import { assertNever, type Decider } from '../shared/decider.ts';
import type { ChangeUserAccess, EnrollUserAccess, SystemAccessCommand } from './commands.ts';
import { systemAccessErrors } from './errors.ts';
import type { SystemAccessEvent, UserAccessEnrolled } from './events.ts';
import { activeSystemAdmins, evolveSystemAccess, initialSystemAccessState, plainAccess, type SystemAccessState, type UserAccess } from './state.ts';

/**
 * Enrollment needs no history: it never lowers the number of active administrators, and
 * `evolve` ignores a repeat. Registration therefore appends it without an expected
 * version (a hot stream must not make sign-ups race each other); a change decided
 * concurrently still loses its expected version and is decided again.
 */
export function enrollUserAccess(command: EnrollUserAccess, context: CommandContext): readonly UserAccessEnrolled[] {
  if (!context.actor.isSystemAdmin) throw systemAccessErrors.adminOnly();
  return [{ type: 'UserAccessEnrolled', data: { userId: command.userId, isSystemAdmin: command.isSystemAdmin } }];
}

function decideChange(command: ChangeUserAccess, state: SystemAccessState, context: CommandContext): readonly SystemAccessEvent[] {
  if (!context.actor.isSystemAdmin) throw systemAccessErrors.adminOnly();
  const { userId } = command;
  const known = state.users.get(userId);
  // A user missing from the history because registration stopped half-way gets its
  // registration facts; a plain user is the default anyway.
  const enrollFirst = known === undefined && command.registeredAsSystemAdmin;
  const current: UserAccess = known ?? (enrollFirst ? { active: true, systemAdmin: true } : plainAccess);

  const changes: SystemAccessEvent[] = [];
  if (command.isActive !== undefined && command.isActive !== current.active) {
    changes.push(command.isActive ? { type: 'UserReactivated', data: { userId } } : { type: 'UserDeactivated', data: { userId } });
  }
  if (command.isSystemAdmin !== undefined && command.isSystemAdmin !== current.systemAdmin) {
    changes.push(command.isSystemAdmin ? { type: 'SystemAdminGranted', data: { userId } } : { type: 'SystemAdminRevoked', data: { userId } });
  }
  // A PATCH that changes nothing records nothing.
  if (changes.length === 0) return [];
  const events: SystemAccessEvent[] = enrollFirst ? [{ type: 'UserAccessEnrolled', data: { userId, isSystemAdmin: true } }, ...changes] : changes;

  // Interface 3: the change must not leave zero active system administrators. Decided on
  // this stream's history and appended with its version, so two administrators demoting
  // each other at once cannot both pass: the second is decided again and refused here.
  const next = events.reduce(evolveSystemAccess, state);
  const wasActiveAdmin = current.active && current.systemAdmin;
  if (wasActiveAdmin && activeSystemAdmins(next).length === 0) throw systemAccessErrors.lastSystemAdmin();

  // The caller's token said "system administrator"; the history has the last word
  // (a demotion that committed while this request was in flight). Checked after the
  // guard so that the loser of a mutual demotion learns why: 409, not 403.
  const actor = context.actor.userId === null ? undefined : state.users.get(context.actor.userId);
  if (actor !== undefined && !(actor.active && actor.systemAdmin)) throw systemAccessErrors.adminOnly();
  return events;
}

export function decideSystemAccess(command: SystemAccessCommand, state: SystemAccessState, context: CommandContext): readonly SystemAccessEvent[] {
  switch (command.type) {
    case 'EnrollUserAccess': {
      const events = enrollUserAccess(command, context);
      return state.users.has(command.userId) ? [] : events;
    }
    case 'ChangeUserAccess':
      return decideChange(command, state, context);
    default:
      return assertNever(command);
  }
}

export const systemAccessDecider: Decider<SystemAccessCommand, SystemAccessEvent, SystemAccessState> = {
  initialState: initialSystemAccessState,
  evolve: evolveSystemAccess,
  decide: decideSystemAccess,
};

/** One stream for the whole system: the guard needs every user's access in one history. */
export const systemAccessStream = 'system_access';
