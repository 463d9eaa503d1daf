import type { AuthCache } from './auth-cache.ts';
import type { OAuthServer } from './oauth-server.ts';

export type VerifiedToken = { readonly userId: string; readonly scopes: ReadonlySet<string>; readonly clientId: string };

/**
 * A token is good when it exists, has not expired, was not revoked and is for this API.
 * A token seen before is answered from memory (see auth-cache.ts for how revocations
 * reach every process).
 */
export async function verifyBearerToken(server: OAuthServer, value: string, cache?: AuthCache): Promise<VerifiedToken | null> {
  if (value.length > 512) return null;
  const cached = cache?.tokens.get(value);
  if (cached) return cached;
  const generation = cache?.tokens.generation ?? 0;
  const token = await server.provider.AccessToken.find(value);
  // Strictly: oidc-provider's own check allows 15 seconds of clock tolerance.
  if (!token || !token.accountId || !token.exp || token.exp * 1000 <= Date.now()) return null;
  const audience: unknown = token.aud;
  const audiences = Array.isArray(audience) ? audience : [audience];
  if (!audiences.includes(server.apiResource)) return null;
  const verified = { userId: token.accountId, scopes: token.scopes, clientId: token.clientId ?? '', grantId: token.grantId ?? null };
  cache?.tokens.set(value, verified, Math.min(token.exp * 1000, Date.now() + 300_000), generation);
  return verified;
}

export async function issueAccessToken(
  server: OAuthServer,
  request: { userId: string; scope: string; ttlSeconds: number; clientId: string; audience?: string },
): Promise<{ value: string; expiresIn: number; jti: string }> {
  const { provider } = server;
  const client = await provider.Client.find(request.clientId);
  if (!client) throw new Error(`OAuth client ${request.clientId} not found`);
  const audience = request.audience ?? server.apiResource;
  // A grant of its own, so that revoking the grant revokes the token like any other.
  const grant = new provider.Grant({ accountId: request.userId, clientId: client.clientId });
  grant.addResourceScope(audience, request.scope);
  const grantId = await grant.save();
  const token = new provider.AccessToken({
    grantId,
    accountId: request.userId,
    client,
    scope: request.scope,
    expiresIn: request.ttlSeconds,
    gty: 'operator',
    resourceServer: new provider.ResourceServer(audience, {
      scope: request.scope,
      audience,
      accessTokenTTL: request.ttlSeconds,
      accessTokenFormat: 'opaque',
    }),
  });
  const value = await token.save();
  return { value, expiresIn: request.ttlSeconds, jti: token.jti };
}
