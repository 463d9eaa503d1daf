import type { DomainEvent } from '../shared/events.ts';

/** An OAuth client registered by an operator (`cairn clients create`); never its secret. */
export type OAuthClientRegistered = DomainEvent<
  'OAuthClientRegistered',
  { readonly clientId: string; readonly name: string; readonly isPublic: boolean; readonly redirectUris: readonly string[] }
>;

/** The client is gone, with every grant and token it held (`cairn clients revoke`). */
export type OAuthClientRevoked = DomainEvent<'OAuthClientRevoked', { readonly clientId: string }>;

export type OAuthClientEvent = OAuthClientRegistered | OAuthClientRevoked;
