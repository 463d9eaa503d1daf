import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * The usual security headers on every response (docs/security.md), from helmet:
 * `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY`, `Referrer-Policy:
 * no-referrer` and a Content Security Policy that allows nothing and no framing. HTML
 * pages replace that policy with their own, as strict as each page allows (the sign-in
 * pages: `pageSecurityHeaders`; the API page: hashes of its inline script and style).
 *
 * Under /oauth/ the policy allows scripts of this origin: oidc-provider then adds the hash
 * of the one inline script of its `form_post` answer (a form that posts the code to the
 * client). Those pages also keep the window that opened them (no Cross-Origin-Opener-Policy),
 * for clients that sign in through a popup. HSTS is sent only when the public URL is HTTPS.
 */
export function securityHeaders(publicUrl: string): RequestHandler {
  const https = new URL(publicUrl).protocol === 'https:';
  const common = {
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    strictTransportSecurity: https ? { maxAge: 180 * 24 * 3600, includeSubDomains: false } : false,
  } as const;
  const nothing = ["'none'"];
  const api = helmet({
    ...common,
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: nothing, baseUri: nothing, formAction: nothing, frameAncestors: nothing } },
  });
  const oauth = helmet({
    ...common,
    crossOriginOpenerPolicy: false,
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: nothing, scriptSrc: ["'self'"], styleSrc: ["'unsafe-inline'"], baseUri: nothing, frameAncestors: nothing } },
  });
  return (req, res, next) => (req.path.startsWith('/oauth/') || req.path.startsWith('/.well-known/') ? oauth : api)(req, res, next);
}

/**
 * The headers of an API answer, as text, for what is written to the socket without express
 * (the answers to requests Node's parser refuses). The same as `securityHeaders` sends on
 * JSON answers; security-headers.spec.ts holds them together.
 */
export const rawSecurityHeaders: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'none';base-uri 'none';form-action 'none';frame-ancestors 'none'",
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
};
