import type { IncomingHttpHeaders } from 'node:http';
import type pg from 'pg';
import type { AuthCache, CachedUser } from '../auth/auth-cache.ts';
import { verifyBearerToken } from '../auth/bearer.ts';
import type { OAuthServer } from '../auth/oauth-server.ts';
import { readCookie, type SessionCookie, type WebSessions } from '../auth/web-sessions.ts';
import { HttpError, httpErrors } from './http-error.ts';
import type { Caller } from './operation.ts';

export type Authenticator = (headers: IncomingHttpHeaders) => Promise<Caller | null>;

export type AuthenticatorDeps = {
  readonly pool: pg.Pool;
  readonly oauth: OAuthServer;
  readonly cache: AuthCache;
  readonly sessions: WebSessions;
  readonly cookie: SessionCookie;
};

const sessionScopes: ReadonlySet<string> = new Set(['read', 'write']);

/**
 * `Authorization: Bearer <token>` (a token of the service's own OAuth server, for this
 * API), or else the web session cookie; either way the user must be active. No
 * credentials is an anonymous caller; bad ones are a 401.
 */
export function createAuthenticator(deps: AuthenticatorDeps): Authenticator {
  const loadUser = async (id: string): Promise<CachedUser | null> => {
    const cached = deps.cache.users.get(id);
    if (cached) return cached;
    const generation = deps.cache.users.generation;
    const { rows } = await deps.pool.query<{ id: string; email: string; is_active: boolean; is_system_admin: boolean }>(
      'select id, email, is_active, is_system_admin from users where id = $1',
      [id],
    );
    const row = rows[0];
    if (!row) return null;
    const user = { id: row.id, email: row.email, isActive: row.is_active, isSystemAdmin: row.is_system_admin };
    deps.cache.users.set(id, user, Date.now() + 60_000, generation);
    return user;
  };

  return async (headers) => {
    const authorization = headers.authorization;
    if (authorization !== undefined && authorization !== '') {
      const match = /^Bearer\s+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(authorization);
      if (!match?.[1]) throw httpErrors.unauthenticated('The Authorization header must be "Bearer <token>".');
      const token = await verifyBearerToken(deps.oauth, match[1], deps.cache);
      const user = token ? await loadUser(token.userId) : null;
      if (!token || !user?.isActive) throw httpErrors.unauthenticated('The access token is not valid or has expired.');
      return { userId: user.id, email: user.email, isSystemAdmin: user.isSystemAdmin, scopes: token.scopes, via: 'bearer' };
    }
    const cookie = readCookie(headers.cookie, deps.cookie.name);
    if (cookie === undefined || cookie === '') return null;
    const session = await deps.sessions.find(cookie);
    const user = session ? await loadUser(session.userId) : null;
    if (!session || !user?.isActive) throw httpErrors.unauthenticated('The session has ended; sign in again.');
    return { userId: user.id, email: user.email, isSystemAdmin: user.isSystemAdmin, scopes: sessionScopes, via: 'session' };
  };
}

/**
 * `cookieAuthCsrfExempt`: no CSRF token is asked for; instead a cookie-authenticated write
 * must come from the service's own origin (or one the operator trusts): `Origin` must be
 * trusted when present, `Sec-Fetch-Site` must not be cross-site, and a request carrying
 * neither header is refused.
 */
export function assertSameOriginWrite(headers: IncomingHttpHeaders, trustedOrigins: ReadonlySet<string>): void {
  const origin = typeof headers.origin === 'string' ? headers.origin : undefined;
  const fetchSite = typeof headers['sec-fetch-site'] === 'string' ? headers['sec-fetch-site'] : undefined;
  const refuse = (why: string) => httpErrors.forbidden(`Cross-site request refused: ${why}.`, 'cross_site_request');
  if (fetchSite === 'cross-site') throw refuse('Sec-Fetch-Site is cross-site');
  if (origin !== undefined) {
    if (!trustedOrigins.has(origin)) throw refuse(`origin ${origin} is not trusted`);
    return;
  }
  if (fetchSite !== 'same-origin') throw refuse('the request carries neither Origin nor a same-origin Sec-Fetch-Site');
}

/**
 * Whether the credentials of these headers still hold: for a long answer (a change stream)
 * that checks them again while it runs. Only a refusal of the credentials (401) says no; a
 * failure to check them (the database gone for a moment) does not end anything.
 */
export async function credentialsStillHold(authenticate: Authenticator, headers: IncomingHttpHeaders): Promise<boolean> {
  try {
    return (await authenticate(headers)) !== null;
  } catch (error) {
    return !(error instanceof HttpError && error.status === 401);
  }
}
