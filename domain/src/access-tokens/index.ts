import { assertNever, type Decider } from '../shared/decider.ts';
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

/**
 * The audit record of an operator's revocation (`cairn tokens revoke`): the token and the
 * grant it belonged to (every token of that grant went with it). Digest only, as at issue.
 */
export type AccessTokenRevoked = DomainEvent<
  'AccessTokenRevoked',
  {
    readonly tokenDigest: string;
    readonly userId: string;
    readonly clientId: string;
    readonly grantId: string | null;
  }
>;

export type AccessTokenEvent = AccessTokenIssued | AccessTokenRevoked;

export type RecordAccessTokenIssued = { readonly type: 'RecordAccessTokenIssued' } & AccessTokenIssued['data'];
export type RecordAccessTokenRevoked = { readonly type: 'RecordAccessTokenRevoked' } & AccessTokenRevoked['data'];
export type AccessTokenCommand = RecordAccessTokenIssued | RecordAccessTokenRevoked;

export type AccessTokenState = { readonly issued: boolean; readonly revoked: boolean };

export const accessTokenDecider: Decider<AccessTokenCommand, AccessTokenEvent, AccessTokenState> = {
  initialState: { issued: false, revoked: false },
  evolve: (state, event) => (event.type === 'AccessTokenIssued' ? { ...state, issued: true } : { ...state, revoked: true }),
  decide: (command, state, context) => {
    if (!context.actor.isSystemAdmin) throw forbidden('permission_denied', 'Only an operator may issue or revoke tokens.');
    switch (command.type) {
      case 'RecordAccessTokenIssued': {
        if (state.issued) return [];
        const { type: _type, ...data } = command;
        return [{ type: 'AccessTokenIssued', data }];
      }
      case 'RecordAccessTokenRevoked': {
        // Tokens of sign-in flows were never recorded as issued: their revocation still is.
        if (state.revoked) return [];
        const { type: _type, ...data } = command;
        return [{ type: 'AccessTokenRevoked', data }];
      }
      default:
        return assertNever(command);
    }
  },
};

export const accessTokenStream = (tokenDigest: string) => `access_token-${tokenDigest}`;
