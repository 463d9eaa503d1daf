import { describe, expect, it } from 'vitest';
import { DomainError } from '../shared/errors.ts';
import type { UserId } from '../shared/ids.ts';
import { decideUser, decideUserEmail } from './decide.ts';

const operator = { actor: { userId: null, isSystemAdmin: true }, now: '2026-01-01T00:00:00.000Z' };
const codeOf = (fn: () => unknown) => {
  try {
    fn();
    return null;
  } catch (error) {
    return error instanceof DomainError ? error.code : 'not a domain error';
  }
};

describe('user deciders', () => {
  const id = 'u1' as UserId;
  it('registers a user with a normalized e-mail address', () => {
    expect(decideUser({ type: 'RegisterUser', id, email: ' Ada@Example.ORG ', name: ' Ada ', isSystemAdmin: true }, { status: 'absent' }, operator)).toEqual([
      { type: 'UserRegistered', data: { id, email: 'ada@example.org', name: 'Ada', isSystemAdmin: true } },
    ]);
  });

  it('refuses bad addresses, blank names and second registrations', () => {
    expect(codeOf(() => decideUser({ type: 'RegisterUser', id, email: 'nope', name: 'A', isSystemAdmin: false }, { status: 'absent' }, operator))).toBe('invalid_email');
    expect(codeOf(() => decideUser({ type: 'RegisterUser', id, email: 'a@b.co', name: ' ', isSystemAdmin: false }, { status: 'absent' }, operator))).toBe('invalid_name');
    expect(codeOf(() => decideUser({ type: 'RegisterUser', id, email: 'a@b.co', name: 'A', isSystemAdmin: false }, { status: 'registered', email: 'a@b.co', isSystemAdmin: false }, operator))).toBe('already_exists');
  });

  it('gives an e-mail address to one user only', () => {
    expect(decideUserEmail({ type: 'ReserveUserEmail', email: 'a@b.co', userId: id }, { holder: null })).toHaveLength(1);
    expect(decideUserEmail({ type: 'ReserveUserEmail', email: 'a@b.co', userId: id }, { holder: id })).toEqual([]);
    expect(codeOf(() => decideUserEmail({ type: 'ReserveUserEmail', email: 'a@b.co', userId: id }, { holder: 'u2' }))).toBe('email_taken');
  });
});
