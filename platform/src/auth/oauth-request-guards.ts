import express, { type RequestHandler } from 'express';
import { apiScopes } from './oauth-server.ts';

/** Interface 5: tokens carry `read` and `write` unless the client asks for API scopes itself. */
export function withDefaultApiScopes(scope: string | null | undefined): string {
  const parts = (scope ?? '').split(' ').filter(Boolean);
  if (!parts.some((p) => (apiScopes as readonly string[]).includes(p))) parts.push(...apiScopes);
  return parts.join(' ');
}

/** No OAuth parameter needs more (a `state` or PKCE challenge is tens of characters). */
export const maxParameterLength = 1024;
export const maxQueryLength = 4096;

function tooLarge(url: string): boolean {
  const query = url.indexOf('?');
  if (query < 0) return false;
  if (url.length - query > maxQueryLength) return true;
  for (const value of new URLSearchParams(url.slice(query + 1)).values()) if (value.length > maxParameterLength) return true;
  return false;
}

/**
 * Requests to the OAuth server, seen before it reads them:
 * - a query over 4,096 characters, or a parameter over 1,024, is 400 `invalid_request`
 *   before anything is stored for it;
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
    if (req.path.startsWith('/oauth/') && tooLarge(req.url)) {
      res.status(400).json({ error: 'invalid_request', error_description: `each parameter is at most ${maxParameterLength} characters, the query at most ${maxQueryLength}` });
      return;
    }
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
