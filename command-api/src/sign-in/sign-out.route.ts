import { endCurrentSession } from '@cairn/contract';
import { clearSessionCookie, implement, readCookie } from '@cairn/platform';
import type { SignInDeps } from './sign-in.deps.ts';

/**
 * Sign-out ends the session everywhere: every web session of the user, in every service
 * instance (the store is shared and each instance's cache forgets within a second), and
 * the OAuth server's sign-in sessions of the user, so no browser stays signed in silently.
 */
export const signOutRoute = (deps: SignInDeps) =>
  implement(endCurrentSession, async ({ req, context }) => {
    const value = readCookie(req.headers.cookie, deps.cookie.name);
    if (value) await deps.sessions.end(value);
    const userId = context.caller?.userId;
    if (userId) {
      await deps.sessions.endAllForUser(userId);
      await deps.pool.query("delete from oidc_payloads where model = 'Session' and payload->>'accountId' = $1", [userId]);
    }
    return { status: 204, headers: { 'Set-Cookie': clearSessionCookie(deps.cookie) } };
  });
