import { describe, expect, it } from 'vitest';
import { accessTokenDecider } from './index.ts';

const operator = { actor: { userId: null, isSystemAdmin: true }, now: '2026-01-01T00:00:00.000Z' };
const revoke = { type: 'RecordAccessTokenRevoked', tokenDigest: 'd', userId: 'u1', clientId: 'c1', grantId: 'g1' } as const;

describe('access token audit records', () => {
  it('records a revocation once, whether or not the issue was recorded', () => {
    expect(accessTokenDecider.decide(revoke, accessTokenDecider.initialState, operator)).toEqual([
      { type: 'AccessTokenRevoked', data: { tokenDigest: 'd', userId: 'u1', clientId: 'c1', grantId: 'g1' } },
    ]);
    const revoked = accessTokenDecider.evolve(accessTokenDecider.initialState, { type: 'AccessTokenRevoked', data: { tokenDigest: 'd', userId: 'u1', clientId: 'c1', grantId: 'g1' } });
    expect(accessTokenDecider.decide(revoke, revoked, operator)).toEqual([]);
  });
});
