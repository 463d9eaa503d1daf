import { describe, expect, it } from 'vitest';
import { DomainError } from '../shared/errors.ts';
import { decideOAuthClient } from './decide.ts';

const operator = { actor: { userId: null, isSystemAdmin: true }, now: '2026-01-01T00:00:00.000Z' };
const plainUser = { actor: { userId: 'u1', isSystemAdmin: false }, now: '2026-01-01T00:00:00.000Z' };
const register = { type: 'RegisterOAuthClient', clientId: 'c1', name: 'Web', isPublic: false, redirectUris: ['https://app.example.org/cb'] } as const;
const codeOf = (fn: () => unknown) => {
  try {
    fn();
    return null;
  } catch (error) {
    return error instanceof DomainError ? error.code : 'not a domain error';
  }
};

describe('OAuth client decider', () => {
  it('records a registration once', () => {
    expect(decideOAuthClient(register, { status: 'unrecorded' }, operator)).toEqual([
      { type: 'OAuthClientRegistered', data: { clientId: 'c1', name: 'Web', isPublic: false, redirectUris: ['https://app.example.org/cb'] } },
    ]);
    expect(codeOf(() => decideOAuthClient(register, { status: 'registered' }, operator))).toBe('already_exists');
  });

  it('revokes registered and unrecorded clients, and a revoked one records nothing more', () => {
    const revoke = { type: 'RevokeOAuthClient', clientId: 'c1' } as const;
    expect(decideOAuthClient(revoke, { status: 'registered' }, operator)).toEqual([{ type: 'OAuthClientRevoked', data: { clientId: 'c1' } }]);
    expect(decideOAuthClient(revoke, { status: 'unrecorded' }, operator)).toHaveLength(1);
    expect(decideOAuthClient(revoke, { status: 'revoked' }, operator)).toEqual([]);
  });

  it('is for operators only', () => {
    expect(codeOf(() => decideOAuthClient(register, { status: 'unrecorded' }, plainUser))).toBe('permission_denied');
  });
});
