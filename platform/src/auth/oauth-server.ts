import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type pg from 'pg';
import { installDevicePolling } from './device-polling.ts';
import type { LocalEviction } from './invalidations.ts';
import { createOidcAdapterClass } from './oidc-adapter.ts';
import { deviceCodePage, deviceConfirmPage, escapeHtml, messagePage, page } from './pages.ts';
import { installOutageAnswers } from './oauth-outage.ts';
import { loadServerSecrets } from './server-secrets.ts';
import { installTruthfulTokenScope } from './token-scope.ts';

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
  readonly refreshTokenTtlSeconds?: number;
  readonly devicePollIntervalSeconds?: number;
  readonly evictLocally?: LocalEviction;
  /** Called when a user signs out through the OAuth server (`/oauth/logout`). */
  readonly onSignOut?: (accountId: string) => Promise<void>;
  /** A request failed because the database cannot be reached (it is answered 503 temporarily_unavailable). */
  readonly onDatabaseUnavailable?: (error: unknown) => void;
};

const formField = (form: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(form)?.[1] ?? '';
const formAction = (form: string) => /action="([^"]*)"/.exec(form)?.[1] ?? '';

function html(ctx: { type: string; body: unknown; set(field: string, value: string): void }, body: string): void {
  ctx.type = 'html';
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'");
  ctx.body = body;
}

/**
 * The service's own OAuth 2.0 server (oidc-provider): authorization code with PKCE
 * (S256, every client), the device authorization grant, refresh tokens that rotate,
 * revocation, introspection and discovery. Storage is PostgreSQL; sign-in and consent
 * pages are served by command-api (see sign-in/).
 */
export async function createOAuthServer(options: OAuthServerOptions): Promise<OAuthServer> {
  const { pool, publicUrl, accessTokenTtlSeconds } = options;
  const refreshTokenTtlSeconds = options.refreshTokenTtlSeconds ?? 14 * 86_400;
  const secrets = await loadServerSecrets(pool);
  const apiResource = `${publicUrl}/api/`;
  const resourceServer = {
    scope: apiScopes.join(' '),
    audience: apiResource,
    accessTokenTTL: accessTokenTtlSeconds,
    accessTokenFormat: 'opaque' as const,
  };

  const configuration: Configuration = {
    adapter: createOidcAdapterClass(pool, options.evictLocally),
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
    // `openid` shares the e-mail address (interface 5).
    claims: { openid: ['sub', 'email', 'email_verified'] },
    pkce: { required: () => true },
    // The authorization code flow only: no implicit or hybrid responses.
    responseTypes: ['code'],
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    features: {
      devInteractions: { enabled: false },
      // A client may revoke and introspect its own tokens only.
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      introspection: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      deviceFlow: {
        enabled: true,
        // Twenty consonants, no vowels or look-alikes: short, unambiguous, no words.
        charset: 'base-20',
        mask: '****-****',
        userCodeInputSource: async (ctx, form, _out, error) => {
          const message = error ? (error.name === 'AbortedError' ? 'The sign-in was cancelled.' : 'That code is not valid or has expired. Try again.') : undefined;
          html(ctx, deviceCodePage(formAction(form), formField(form, 'xsrf'), message));
        },
        userCodeConfirmSource: async (ctx, form, client, _deviceInfo, userCode) => {
          html(ctx, deviceConfirmPage(formAction(form), formField(form, 'xsrf'), userCode, client.clientName ?? client.clientId));
        },
        successSource: async (ctx) => {
          html(ctx, messagePage('Device connected', 'You are signed in on your device. You can close this page.'));
        },
      },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx, form) => {
          html(ctx, page('Sign out', `${form}<p>Sign out of Cairn?</p><button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>`));
        },
        postLogoutSuccessSource: async (ctx) => {
          html(ctx, messagePage('Signed out', 'You are signed out.'));
        },
      },
      resourceIndicators: {
        enabled: true,
        // Without a resource indicator a token is for the API, never for userinfo.
        defaultResource: () => apiResource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== apiResource) throw new errors.InvalidTarget();
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
    renderError: async (ctx, out) => {
      const description = typeof out['error_description'] === 'string' ? out['error_description'] : String(out['error']);
      html(ctx, page('Sign-in problem', `<p>${escapeHtml(description)}</p>`));
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
      // Unfinished sign-ins and sessions nobody signed in to are short-lived, so anonymous
      // visitors cannot fill the database with them (docs/sign-in.md).
      Interaction: 600,
      RefreshToken: refreshTokenTtlSeconds,
      Session: (_ctx: unknown, session: { accountId?: string | undefined }) => (session.accountId ? refreshTokenTtlSeconds : 600),
      Grant: refreshTokenTtlSeconds,
    },
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
  };

  const provider = new Provider(publicUrl, configuration);
  provider.proxy = true;
  // First: the outermost middleware, so that an outage met anywhere below is answered 503.
  installOutageAnswers(provider, options.onDatabaseUnavailable ?? (() => undefined));
  installDevicePolling(provider, pool, options.devicePollIntervalSeconds ?? 5);
  installErrorGuards(provider);
  installTruthfulTokenScope(provider);
  const onSignOut = options.onSignOut;
  if (onSignOut) {
    provider.on('end_session.success', (ctx: KoaContextWithOIDC) => {
      const accountId = ctx.oidc.session?.accountId;
      if (accountId) void onSignOut(accountId).catch(() => undefined);
    });
  }
  return { provider, apiResource };
}

/**
 * oidc-provider fails with a 500 when a page's form is posted with a session cookie it
 * cannot load (a forged or stale one): answer that as the client error it is.
 */
function installErrorGuards(provider: Provider): void {
  provider.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (!(error instanceof TypeError) || !String(error.message).includes('previously persisted Sessions')) throw error;
      ctx.status = 400;
      html(ctx, messagePage('Connect a device', 'Open the code page first, then enter the code shown on your device.'));
    }
  });
}
