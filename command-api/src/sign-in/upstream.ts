import * as client from 'openid-client';

export type UpstreamSettings = { readonly issuer: string; readonly clientId: string; readonly clientSecret: string | undefined; readonly name: string; readonly createUsers: boolean };

export type UpstreamProvider = {
  readonly name: string;
  readonly createUsers: boolean;
  authorizationUrl(redirectUri: string, checks: { state: string; nonce: string; codeVerifier: string }): Promise<URL>;
  /** The verified e-mail address the provider vouches for, or null. */
  verifiedEmail(currentUrl: URL, checks: { state: string; nonce: string; codeVerifier: string }): Promise<{ email: string; name: string } | null>;
};

/**
 * An external OpenID Connect provider (optional per deployment). Its metadata is
 * discovered on first use and kept; plain http is allowed only for a loopback issuer
 * (tests, local development).
 */
export function createUpstreamProvider(settings: UpstreamSettings): UpstreamProvider {
  let configuration: Promise<client.Configuration> | null = null;
  const discover = () => {
    if (!configuration) {
      const url = new URL(settings.issuer);
      const loopback = url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
      configuration = client
        .discovery(url, settings.clientId, settings.clientSecret, undefined, loopback ? { execute: [client.allowInsecureRequests] } : {})
        .catch((error: unknown) => {
          configuration = null;
          throw error;
        });
    }
    return configuration;
  };

  return {
    name: settings.name,
    createUsers: settings.createUsers,
    async authorizationUrl(redirectUri, checks) {
      const config = await discover();
      return client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        state: checks.state,
        nonce: checks.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
        code_challenge_method: 'S256',
      });
    },
    async verifiedEmail(currentUrl, checks) {
      const config = await discover();
      const tokens = await client.authorizationCodeGrant(config, currentUrl, { pkceCodeVerifier: checks.codeVerifier, expectedState: checks.state, expectedNonce: checks.nonce });
      const idClaims = tokens.claims();
      // Many providers put profile claims in the userinfo answer only.
      const claims: Record<string, unknown> | undefined =
        idClaims && typeof idClaims['email'] === 'string' ? idClaims : idClaims ? await client.fetchUserInfo(config, tokens.access_token, idClaims.sub) : undefined;
      const email = typeof claims?.['email'] === 'string' ? claims['email'] : null;
      // Only an address the provider has verified identifies a user here.
      if (!email || claims?.['email_verified'] !== true) return null;
      const name = typeof claims['name'] === 'string' && claims['name'].trim() !== '' ? claims['name'] : email.split('@')[0] ?? email;
      return { email, name };
    },
  };
}
