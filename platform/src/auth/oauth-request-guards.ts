import express, { type RequestHandler } from 'express';
import { apiScopes } from './oauth-server.ts';

/** Interface 5: tokens carry `read` and `write` unless the client asks for API scopes itself. */
export function withDefaultApiScopes(scope: string | null | undefined): string {
  const parts = (scope ?? '').split(' ').filter(Boolean);
  if (!parts.some((p) => (apiScopes as readonly string[]).includes(p))) parts.push(...apiScopes);
  return parts.join(' ');
}

/**
 * Requests to the OAuth server, seen before it reads them:
 * - authorization and device authorization requests that name no API scope get the
 *   default ones;
 * - a token request for a resource other than the API is refused `invalid_target` before
 *   oidc-provider would spend the refresh token it carries (and so revoke its family).
 * Form bodies are handed on as text, which oidc-provider reads like the original body.
 */
export function oauthRequestGuards(apiResource: string): RequestHandler {
  const raw = express.raw({ type: 'application/x-www-form-urlencoded', limit: '56kb' });
  return (req, res, next) => {
    if (req.path === '/oauth/token' && req.method === 'POST' && req.is('application/x-www-form-urlencoded')) {
      return raw(req, res, (error?: unknown) => {
        if (error) return next(error);
        const text = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
        const resources = new URLSearchParams(text).getAll('resource');
        if (resources.some((r) => r !== apiResource)) {
          res.status(400).json({ error: 'invalid_target', error_description: 'the only resource here is the API' });
          return;
        }
        req.body = text;
        next();
      });
    }
    const authorize = req.path === '/oauth/authorize';
    if (!authorize && req.path !== '/oauth/device/auth') return next();
    if (req.method === 'GET' && authorize) {
      const url = new URL(req.url, 'http://localhost');
      url.searchParams.set('scope', withDefaultApiScopes(url.searchParams.get('scope')));
      req.url = `${url.pathname}${url.search}`;
      return next();
    }
    if (req.method !== 'POST' || !req.is('application/x-www-form-urlencoded')) return next();
    raw(req, res, (error?: unknown) => {
      if (error) return next(error);
      const params = new URLSearchParams(Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '');
      params.set('scope', withDefaultApiScopes(params.get('scope')));
      req.body = params.toString();
      next();
    });
  };
}
