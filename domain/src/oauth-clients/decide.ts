import type { CommandContext } from '../shared/command-context.ts';
import { assertNever, type Decider } from '../shared/decider.ts';
import { conflict, forbidden } from '../shared/errors.ts';
import type { OAuthClientEvent, OAuthClientRegistered } from './events.ts';

export type RegisterOAuthClient = { readonly type: 'RegisterOAuthClient' } & OAuthClientRegistered['data'];
export type RevokeOAuthClient = { readonly type: 'RevokeOAuthClient'; readonly clientId: string };
export type OAuthClientCommand = RegisterOAuthClient | RevokeOAuthClient;

/** Clients made before registrations were recorded have no history: they are revocable all the same. */
export type OAuthClientState = { readonly status: 'unrecorded' | 'registered' | 'revoked' };

export const oauthClientErrors = {
  operatorOnly: () => forbidden('permission_denied', 'Only an operator may register or revoke OAuth clients.'),
  exists: () => conflict('already_exists', 'This OAuth client is registered already.'),
};

export function decideOAuthClient(command: OAuthClientCommand, state: OAuthClientState, context: CommandContext): readonly OAuthClientEvent[] {
  if (!context.actor.isSystemAdmin) throw oauthClientErrors.operatorOnly();
  switch (command.type) {
    case 'RegisterOAuthClient': {
      if (state.status !== 'unrecorded') throw oauthClientErrors.exists();
      const { type: _type, ...data } = command;
      return [{ type: 'OAuthClientRegistered', data }];
    }
    case 'RevokeOAuthClient':
      return state.status === 'revoked' ? [] : [{ type: 'OAuthClientRevoked', data: { clientId: command.clientId } }];
    default:
      return assertNever(command);
  }
}

export const oauthClientDecider: Decider<OAuthClientCommand, OAuthClientEvent, OAuthClientState> = {
  initialState: { status: 'unrecorded' },
  evolve: (_state, event) => ({ status: event.type === 'OAuthClientRegistered' ? 'registered' : 'revoked' }),
  decide: decideOAuthClient,
};

export const oauthClientStream = (clientId: string) => `oauth_client-${clientId}`;
