import type Provider from 'oidc-provider';

type TokenBody = { readonly access_token: string; readonly scope?: string; readonly id_token?: string; readonly refresh_token?: string };
const isTokenBody = (body: unknown): body is TokenBody => typeof body === 'object' && body !== null && 'access_token' in body;

/**
 * oidc-provider answers a token request with `scope` = the access token's scopes for the
 * API resource (`read write`): a client that asked for `openid offline_access read write`
 * and got an ID token and a refresh token reads that those were refused, and some OAuth
 * libraries then fail on "scope changed". The answer's `scope` says what the answer grants
 * (docs/identity-and-tokens.md): the access token's scopes, `openid` with an ID token, and
 * `offline_access` with a refresh token. oidc-provider itself drops `offline_access` from a
 * grant unless the request had `prompt=consent` (OpenID Connect Core 11), yet it issues
 * refresh tokens to every client allowed the refresh_token grant: the refresh token is the
 * offline access, so the scope names it.
 */
export function installTruthfulTokenScope(provider: Provider): void {
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.oidc?.route !== 'token' || ctx.status !== 200 || !isTokenBody(ctx.body)) return;
    const body = ctx.body;
    const granted = [...(body.id_token ? ['openid'] : []), ...(body.refresh_token ? ['offline_access'] : [])];
    if (granted.length === 0) return;
    const access = (body.scope ?? '').split(' ').filter((s) => s !== '');
    ctx.body = { ...body, scope: [...new Set([...granted, ...access])].join(' ') };
  });
}
