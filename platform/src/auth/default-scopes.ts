import express, { type RequestHandler } from 'express';
import { apiScopes } from './oauth-server.ts';

/** Interface 5: tokens carry `read` and `write` unless the client asks for API scopes itself. */
export function withDefaultApiScopes(scope: string | null | undefined): string {
  const parts = (scope ?? '').split(' ').filter(Boolean);
  if (!parts.some((p) => (apiScopes as readonly string[]).includes(p))) parts.push(...apiScopes);
  return parts.join(' ');
}

/**
 * Gives authorization and device authorization requests that name no API scope the
 * default ones, before the OAuth server reads them. Form bodies are handed on as text,
 * which oidc-provider reads like the original body.
 */
export function defaultScopes(): RequestHandler {
  const raw = express.raw({ type: 'application/x-www-form-urlencoded', limit: '56kb' });
  return (req, res, next) => {
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
