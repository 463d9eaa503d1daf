import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { DatabaseBusyError } from '../db/pool.ts';
import { isDatabaseUnavailable } from '../http/database-outage.ts';
import { messagePage } from './pages.ts';

/** Seconds a client is asked to wait, as the API's own 503 database_unavailable asks. */
export const oauthRetryAfterSeconds = 2;

/** The database cannot answer this request for now: unreachable, or every connection busy with others (no outage). */
const cannotAnswerNow = (error: unknown) => isDatabaseUnavailable(error) || error instanceof DatabaseBusyError;

/**
 * The OAuth endpoints' answer while the database cannot be reached (or this process's
 * connections are all busy): 503 with Retry-After
 * and `temporarily_unavailable` (RFC 6749 4.1.2.1 names that error for a server that
 * cannot answer for now; clients retry it), never oidc-provider's 500 `server_error`.
 *
 * oidc-provider turns what fails inside an endpoint into `server_error` itself and only
 * tells its `server_error` event, so that event marks the request; what fails in the
 * provider's own middleware (device polling) is caught here. Registered before any other
 * provider middleware, so it is the outermost and has the last word on the answer.
 */
export function installOutageAnswers(provider: Provider, onUnavailable: (error: unknown) => void): void {
  const failed = new WeakMap<object, unknown>();
  provider.on('server_error', (ctx: KoaContextWithOIDC, error: unknown) => {
    if (cannotAnswerNow(error)) failed.set(ctx, error);
  });
  provider.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (!cannotAnswerNow(error)) throw error;
      failed.set(ctx, error);
    }
    if (!failed.has(ctx)) return;
    const error = failed.get(ctx);
    if (!(error instanceof DatabaseBusyError)) onUnavailable(error);
    ctx.status = 503;
    // An authorization request's error would redirect to the client: there is nothing to tell it yet.
    ctx.remove('Location');
    ctx.set('Retry-After', String(oauthRetryAfterSeconds));
    ctx.set('Cache-Control', 'no-store');
    const description = error instanceof DatabaseBusyError ? 'The service is busy with other requests right now; retry shortly.' : 'The service cannot reach its database right now; retry shortly.';
    if (ctx.oidc?.route !== 'token' && ctx.accepts('json', 'html') === 'html') {
      ctx.type = 'html';
      ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'");
      ctx.body = messagePage('Temporarily unavailable', description);
    } else {
      ctx.body = { error: 'temporarily_unavailable', error_description: description };
    }
  });
}
