import type { OAuthServer } from './oauth-server.ts';

export type VerifiedToken = { readonly userId: string; readonly scopes: ReadonlySet<string>; readonly clientId: string };

/** A token is good when it exists, has not expired, was not revoked and is for this API. */
export async function verifyBearerToken(server: OAuthServer, value: string): Promise<VerifiedToken | null> {
  if (value.length > 512) return null;
  const token = await server.provider.AccessToken.find(value);
  if (!token || !token.accountId) return null;
  const audience: unknown = token.aud;
  const audiences = Array.isArray(audience) ? audience : [audience];
  if (!audiences.includes(server.apiResource)) return null;
  return { userId: token.accountId, scopes: token.scopes, clientId: token.clientId ?? '' };
}

export async function issueAccessToken(
  server: OAuthServer,
  request: { userId: string; scope: string; ttlSeconds: number; clientId: string },
): Promise<{ value: string; expiresIn: number; jti: string }> {
  const { provider } = server;
  const client = await provider.Client.find(request.clientId);
  if (!client) throw new Error(`OAuth client ${request.clientId} not found`);
  // A grant of its own, so that revoking the grant revokes the token like any other.
  const grant = new provider.Grant({ accountId: request.userId, clientId: client.clientId });
  grant.addResourceScope(server.apiResource, request.scope);
  const grantId = await grant.save();
  const token = new provider.AccessToken({
    grantId,
    accountId: request.userId,
    client,
    scope: request.scope,
    expiresIn: request.ttlSeconds,
    gty: 'operator',
    resourceServer: new provider.ResourceServer(server.apiResource, {
      scope: request.scope,
      audience: server.apiResource,
      accessTokenTTL: request.ttlSeconds,
      accessTokenFormat: 'opaque',
    }),
  });
  const value = await token.save();
  return { value, expiresIn: request.ttlSeconds, jti: token.jti };
}
