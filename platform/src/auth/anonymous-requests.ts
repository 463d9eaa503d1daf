import type { Request, Response } from 'express';

/** No parameter of an anonymous route needs more (a `state` or PKCE challenge is tens of characters). */
export const maxParameterLength = 1024;
export const maxQueryLength = 4096;
/** A form body to the OAuth server: its largest legitimate one (an authorization request) is a few hundred bytes. */
export const maxOAuthBodyBytes = 16_384;
export const maxOAuthParameters = 64;

/**
 * The requests that may store state before anyone signs in: a sign-in (authorization, plain
 * or pushed), the device code page (a session) and a device authorization.
 */
export function startsSignInState(req: Pick<Request, 'method' | 'path'>): boolean {
  const { method, path } = req;
  if (method === 'GET' && (path === '/oauth/authorize' || path === '/oauth/device')) return true;
  return method === 'POST' && (path === '/oauth/authorize' || path === '/oauth/par' || path === '/oauth/device/auth');
}

/** OAuth clients read errors as RFC 6749 5.2 has them; the sign-in pages sit under /oauth/ too. */
export const isOAuthPath = (path: string) => path.startsWith('/oauth/') || path.startsWith('/.well-known/');

const oauthErrorOf: Record<number, string> = { 400: 'invalid_request', 413: 'invalid_request', 429: 'temporarily_unavailable' };

/**
 * A refusal of an anonymous request, in the error shape of DECISIONS.md 1; under /oauth/
 * and /.well-known/ it also carries RFC 6749's `error` and `error_description`, so that
 * OAuth clients read it like the OAuth server's own errors (docs/sign-in.md).
 */
export function refuseAnonymous(req: Pick<Request, 'path'>, res: Response, status: 400 | 413 | 429, code: string, detail: string, headers: Record<string, string> = {}): void {
  const oauth = isOAuthPath(req.path) ? { error: oauthErrorOf[status] ?? 'invalid_request', error_description: detail } : {};
  res.status(status).set(headers).set('Cache-Control', 'no-store').json({ status, code, detail, ...oauth });
}

/** Why the query string is refused, or null: over 4,096 characters, or a name or value over 1,024. */
export function oversizedQuery(url: string): string | null {
  const start = url.indexOf('?');
  if (start < 0) return null;
  if (url.length - start - 1 > maxQueryLength) return `The query string may take at most ${maxQueryLength} characters.`;
  for (const [name, value] of new URLSearchParams(url.slice(start + 1))) {
    if (name.length > maxParameterLength || value.length > maxParameterLength) return `Each parameter is at most ${maxParameterLength} characters.`;
  }
  return null;
}

/** Why a form body is refused, or null: more than 64 parameters, or a name or value over 1,024 characters. */
export function oversizedForm(text: string): string | null {
  let count = 0;
  for (const [name, value] of new URLSearchParams(text)) {
    count += 1;
    if (count > maxOAuthParameters) return `A request carries at most ${maxOAuthParameters} parameters.`;
    if (name.length > maxParameterLength || value.length > maxParameterLength) return `Each parameter is at most ${maxParameterLength} characters.`;
  }
  return null;
}
