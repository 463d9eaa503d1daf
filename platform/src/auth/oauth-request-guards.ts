import express, { type Request, type RequestHandler } from 'express';
import { maxOAuthBodyBytes, oversizedForm, refuseAnonymous } from './anonymous-requests.ts';
import { apiScopes } from './oauth-server.ts';

/** Interface 5: tokens carry `read` and `write` unless the client asks for API scopes itself. */
export function withDefaultApiScopes(scope: string | null | undefined): string {
  const parts = (scope ?? '').split(' ').filter(Boolean);
  if (!parts.some((p) => (apiScopes as readonly string[]).includes(p))) parts.push(...apiScopes);
  return parts.join(' ');
}

/**
 * Requests to the OAuth server, seen before it reads them (anonymousBudget has bounded
 * their query already):
 * - a form body is read here, at most 16 KiB (413), and refused 400 `invalid_request` with
 *   more than 64 parameters or a name or value over 1,024 characters, before anything is
 *   stored for it; oidc-provider then reads the text handed on (its own limit is 56 KiB);
 * - authorization and device authorization requests that name no API scope get the
 *   default ones;
 * - a token request for a resource other than the API is refused `invalid_target` before
 *   oidc-provider would spend the refresh token it carries (and so revoke its family).
 * The sign-in pages (/oauth/interaction/) parse their own forms, with their own bounds.
 */
export function oauthRequestGuards(apiResource: string): RequestHandler {
  const raw = express.raw({ type: 'application/x-www-form-urlencoded', limit: maxOAuthBodyBytes });
  const defaultScope = (req: Request) => req.path === '/oauth/authorize' || req.path === '/oauth/device/auth';
  return (req, res, next) => {
    if (!req.path.startsWith('/oauth/') || req.path.startsWith('/oauth/interaction/')) return next();
    if (req.method === 'GET' && req.path === '/oauth/authorize') {
      const url = new URL(req.url, 'http://localhost');
      url.searchParams.set('scope', withDefaultApiScopes(url.searchParams.get('scope')));
      req.url = `${url.pathname}${url.search}`;
      return next();
    }
    if (req.method !== 'POST' || !req.is('application/x-www-form-urlencoded')) return next();
    raw(req, res, (error?: unknown) => {
      if (error) {
        const tooLarge = (error as { type?: string }).type === 'entity.too.large';
        if (tooLarge) return refuseAnonymous(req, res, 413, 'payload_too_large', `A request here may carry at most ${maxOAuthBodyBytes} bytes.`);
        return next(error);
      }
      const text = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
      const oversized = oversizedForm(text);
      if (oversized) return refuseAnonymous(req, res, 400, 'parameter_too_long', oversized);
      const params = new URLSearchParams(text);
      if (req.path === '/oauth/token' && params.getAll('resource').some((r) => r !== apiResource)) {
        res.status(400).json({ error: 'invalid_target', error_description: 'the only resource here is the API' });
        return;
      }
      if (defaultScope(req)) {
        params.set('scope', withDefaultApiScopes(params.get('scope')));
        req.body = params.toString();
      } else req.body = text;
      next();
    });
  };
}
