import Provider, { type Configuration } from 'oidc-provider';
import type pg from 'pg';
import { createOidcAdapterClass } from './oidc-adapter.ts';
import { loadServerSecrets } from './server-secrets.ts';

export const apiScopes = ['read', 'write'] as const;
export const cliClientId = 'cairn-cli';

export type OAuthServer = {
  readonly provider: Provider;
  /** The audience every API token must carry (a resource indicator, RFC 8707). */
  readonly apiResource: string;
};

export type OAuthServerOptions = {
  readonly pool: pg.Pool;
  readonly publicUrl: string;
  readonly accessTokenTtlSeconds: number;
};

/**
 * The service's own OAuth 2.0 server. Issue 2 uses it for storage, token minting and
 * bearer verification; the sign-in pages and flows come with the sign-in issue.
 */
export async function createOAuthServer({ pool, publicUrl, accessTokenTtlSeconds }: OAuthServerOptions): Promise<OAuthServer> {
  const secrets = await loadServerSecrets(pool);
  const apiResource = `${publicUrl}/api/`;
  const resourceServer = {
    scope: apiScopes.join(' '),
    audience: apiResource,
    accessTokenTTL: accessTokenTtlSeconds,
    accessTokenFormat: 'opaque' as const,
  };

  const configuration: Configuration = {
    adapter: createOidcAdapterClass(pool),
    clients: [
      {
        client_id: cliClientId,
        client_name: 'cairn command line',
        grant_types: ['refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'none',
      },
    ],
    jwks: { keys: [secrets.signingKey] },
    cookies: { keys: secrets.cookieKeys },
    scopes: ['openid', 'offline_access', ...apiScopes],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      deviceFlow: { enabled: true },
      revocation: { enabled: true },
      introspection: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => apiResource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== apiResource) throw new Error('unknown resource');
          return resourceServer;
        },
      },
    },
    findAccount: async (_ctx, sub) => {
      const { rows } = await pool.query<{ id: string; email: string }>('select id, email from users where id = $1 and is_active', [sub]);
      const user = rows[0];
      if (!user) return undefined;
      return { accountId: user.id, claims: () => ({ sub: user.id, email: user.email, email_verified: true }) };
    },
    routes: {
      authorization: '/oauth/authorize',
      token: '/oauth/token',
      jwks: '/oauth/jwks',
      revocation: '/oauth/revoke',
      introspection: '/oauth/introspect',
      userinfo: '/oauth/userinfo',
      end_session: '/oauth/logout',
      device_authorization: '/oauth/device/auth',
      code_verification: '/oauth/device',
      pushed_authorization_request: '/oauth/par',
      registration: '/oauth/register',
      challenge: '/oauth/challenge',
      backchannel_authentication: '/oauth/backchannel',
    },
    ttl: {
      AccessToken: accessTokenTtlSeconds,
      AuthorizationCode: 60,
      DeviceCode: 600,
      IdToken: 3600,
      Interaction: 3600,
      RefreshToken: 14 * 86_400,
      Session: 14 * 86_400,
      Grant: 14 * 86_400,
    },
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
  };

  const provider = new Provider(publicUrl, configuration);
  provider.proxy = true;
  return { provider, apiResource };
}
