import type { Decider } from '../shared/decider.ts';
import { forbidden } from '../shared/errors.ts';
import type { DomainEvent } from '../shared/events.ts';

/** The audit record of a token issued outside a sign-in flow (`cairn tokens issue`). */
export type AccessTokenIssued = DomainEvent<
  'AccessTokenIssued',
  {
    readonly tokenDigest: string;
    readonly userId: string;
    readonly clientId: string;
    readonly scope: string;
    readonly expiresAt: string;
  }
>;

export type RecordAccessTokenIssued = { readonly type: 'RecordAccessTokenIssued' } & AccessTokenIssued['data'];

export const accessTokenDecider: Decider<RecordAccessTokenIssued, AccessTokenIssued, { readonly issued: boolean }> = {
  initialState: { issued: false },
  evolve: () => ({ issued: true }),
  decide: (command, state, context) => {
    if (!context.actor.isSystemAdmin) throw forbidden('permission_denied', 'Only an operator may issue tokens.');
    if (state.issued) return [];
    const { type: _type, ...data } = command;
    return [{ type: 'AccessTokenIssued', data }];
  },
};

export const accessTokenStream = (tokenDigest: string) => `access_token-${tokenDigest}`;
