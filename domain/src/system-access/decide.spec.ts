import { describe, expect, it } from 'vitest';
import type { CommandContext } from '../shared/command-context.ts';
import { givenFor } from '../shared/decider-spec.ts';
import type { UserId } from '../shared/ids.ts';
import type { ChangeUserAccess, SystemAccessCommand } from './commands.ts';
import { enrollUserAccess, systemAccessDecider } from './decide.ts';
import type { SystemAccessEvent } from './events.ts';
import { activeSystemAdmins } from './state.ts';

const now = '2026-01-01T00:00:00.000Z';
const [ada, bob, cyd, dan] = ['ada', 'bob', 'cyd', 'dan'] as UserId[] as [UserId, UserId, UserId, UserId];
const as = (userId: string | null, isSystemAdmin = true): CommandContext => ({ actor: { userId, isSystemAdmin }, now });
const operator = as(null);
const enrolled = (userId: UserId, isSystemAdmin = false): SystemAccessEvent => ({ type: 'UserAccessEnrolled', data: { userId, isSystemAdmin } });
const change = (userId: UserId, changes: Pick<ChangeUserAccess, 'isActive' | 'isSystemAdmin'>, registeredAsSystemAdmin = false): SystemAccessCommand => ({
  type: 'ChangeUserAccess',
  userId,
  registeredAsSystemAdmin,
  ...changes,
});

const given = givenFor(systemAccessDecider, as(ada));

describe('system access: the last-administrator guard', () => {
  const twoAdmins = [enrolled(ada, true), enrolled(bob, true), enrolled(cyd)];

  it('refuses to deactivate the only active system administrator', () => {
    expect(given([enrolled(ada, true), enrolled(bob)]).when(change(ada, { isActive: false })).code).toBe('last_system_admin');
  });

  it('refuses to revoke the only active system administrator', () => {
    expect(given([enrolled(ada, true), enrolled(bob)]).when(change(ada, { isSystemAdmin: false })).code).toBe('last_system_admin');
  });

  it('allows either change while another active system administrator remains', () => {
    expect(given(twoAdmins).when(change(bob, { isActive: false })).events).toEqual([{ type: 'UserDeactivated', data: { userId: bob } }]);
    expect(given(twoAdmins).when(change(ada, { isSystemAdmin: false })).events).toEqual([{ type: 'SystemAdminRevoked', data: { userId: ada } }]);
  });

  it('does not count a deactivated administrator as the one that remains', () => {
    const bobDeactivated = [...twoAdmins, { type: 'UserDeactivated', data: { userId: bob } } as const];
    expect(given(bobDeactivated).when(change(ada, { isSystemAdmin: false })).code).toBe('last_system_admin');
    expect(given(bobDeactivated).when(change(ada, { isActive: false })).code).toBe('last_system_admin');
  });

  it('judges both changes of one PATCH together', () => {
    expect(given(twoAdmins).when(change(ada, { isActive: false, isSystemAdmin: false })).events).toEqual([
      { type: 'UserDeactivated', data: { userId: ada } },
      { type: 'SystemAdminRevoked', data: { userId: ada } },
    ]);
    expect(given([enrolled(ada, true)]).when(change(ada, { isActive: false, isSystemAdmin: false })).code).toBe('last_system_admin');
  });

  it('leaves one standing when two administrators demote each other', () => {
    // Both decided on the same history; the second is decided again after the first commits.
    const first = given(twoAdmins).when(change(bob, { isSystemAdmin: false }), as(ada));
    expect(first.code).toBeNull();
    const second = given([...twoAdmins, ...first.events]).when(change(ada, { isSystemAdmin: false }), as(bob));
    expect(second.code).toBe('last_system_admin');
    expect(activeSystemAdmins(given([...twoAdmins, ...first.events]).state)).toEqual([ada]);
  });

  it('refuses a caller whom the history no longer shows as an active administrator', () => {
    const bobRevoked = [enrolled(ada, true), enrolled(bob, true), enrolled(cyd, true), { type: 'SystemAdminRevoked', data: { userId: bob } } as const];
    expect(given(bobRevoked).when(change(cyd, { isSystemAdmin: false }), as(bob)).code).toBe('permission_denied');
    expect(given(bobRevoked).when(change(cyd, { isSystemAdmin: false }), as(ada)).code).toBeNull();
  });

  it('never refuses changes that do not remove an active administrator', () => {
    const onlyAda = [enrolled(ada, true), enrolled(bob)];
    expect(given(onlyAda).when(change(bob, { isActive: false })).events).toEqual([{ type: 'UserDeactivated', data: { userId: bob } }]);
    expect(given(onlyAda).when(change(bob, { isSystemAdmin: true })).events).toEqual([{ type: 'SystemAdminGranted', data: { userId: bob } }]);
    // No administrator at all (a state only an operator could reach): nothing is made worse.
    expect(given([enrolled(bob)]).when(change(bob, { isActive: false }), operator).code).toBeNull();
  });
});

describe('system access: changes', () => {
  it('reactivates a deactivated user, and the reactivated administrator counts again', () => {
    const history = [enrolled(ada, true), enrolled(bob, true), { type: 'UserDeactivated', data: { userId: bob } } as const];
    const reactivated = given(history).when(change(bob, { isActive: true }));
    expect(reactivated.events).toEqual([{ type: 'UserReactivated', data: { userId: bob } }]);
    expect(given([...history, ...reactivated.events]).when(change(ada, { isActive: false })).code).toBeNull();
  });

  it('records nothing for a change that changes nothing', () => {
    expect(given([enrolled(ada, true), enrolled(bob)]).when(change(bob, { isActive: true, isSystemAdmin: false })).events).toEqual([]);
    expect(given([enrolled(ada, true)]).when(change(ada, {})).events).toEqual([]);
  });

  it('enrolls an administrator that registration left out before changing it', () => {
    expect(given([enrolled(ada, true)]).when(change(dan, { isActive: false }, true)).events).toEqual([
      { type: 'UserAccessEnrolled', data: { userId: dan, isSystemAdmin: true } },
      { type: 'UserDeactivated', data: { userId: dan } },
    ]);
  });

  it('lets only system administrators change access', () => {
    expect(given([enrolled(ada, true), enrolled(bob)]).when(change(bob, { isActive: false }), as(bob, false)).code).toBe('permission_denied');
  });
});

describe('system access: enrollment', () => {
  it('enrolls once; a repeat does not undo later changes', () => {
    const history = [enrolled(ada, true), enrolled(bob, true), { type: 'SystemAdminRevoked', data: { userId: bob } } as const, enrolled(bob, true)];
    expect(activeSystemAdmins(given(history).state)).toEqual([ada]);
    expect(given(history).when({ type: 'EnrollUserAccess', userId: bob, isSystemAdmin: true }, operator).events).toEqual([]);
    const deactivated = [enrolled(ada, true), enrolled(cyd), { type: 'UserDeactivated', data: { userId: cyd } } as const, enrolled(cyd)];
    expect(given(deactivated).state.users.get(cyd)).toEqual({ active: false, systemAdmin: false });
  });

  it('is for operators and administrators only', () => {
    expect(enrollUserAccess({ type: 'EnrollUserAccess', userId: dan, isSystemAdmin: false }, operator)).toEqual([enrolled(dan)]);
    expect(given([]).when({ type: 'EnrollUserAccess', userId: dan, isSystemAdmin: true }, as(dan, false)).code).toBe('permission_denied');
  });
});
