import type pg from 'pg';
import { verifyBearerToken } from '../auth/bearer.ts';
import type { OAuthServer } from '../auth/oauth-server.ts';
import { httpErrors } from './http-error.ts';
import type { Caller } from './operation.ts';

export type Authenticator = (authorization: string | undefined) => Promise<Caller | null>;

/**
 * `Authorization: Bearer <token>`: a token of the service's OAuth server, for this API,
 * held by an active user. No header is an anonymous caller; a bad one is a 401.
 */
export function createAuthenticator(pool: pg.Pool, oauth: OAuthServer): Authenticator {
  return async (authorization) => {
    if (authorization === undefined || authorization === '') return null;
    const match = /^Bearer\s+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(authorization);
    if (!match?.[1]) throw httpErrors.unauthenticated('The Authorization header must be "Bearer <token>".');
    const token = await verifyBearerToken(oauth, match[1]);
    if (!token) throw httpErrors.unauthenticated('The access token is not valid or has expired.');
    const { rows } = await pool.query<{ id: string; email: string; is_system_admin: boolean }>(
      'select id, email, is_system_admin from users where id = $1 and is_active',
      [token.userId],
    );
    const user = rows[0];
    if (!user) throw httpErrors.unauthenticated('The access token is not valid or has expired.');
    return { userId: user.id, email: user.email, isSystemAdmin: user.is_system_admin, scopes: token.scopes };
  };
}
