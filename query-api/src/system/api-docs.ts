import { allContracts, apiTitle, apiVersion } from '@cairn/contract';
import { buildOpenApiDocument, escapeHtml, sessionCookie } from '@cairn/platform';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Express } from 'express';

/** The public OAuth client of the API page (registered at start by `cairn serve`, cli/src/commands/docs-client.ts). */
export const apiDocsClientId = 'cairn-api-docs';
export const apiDocsRedirectPath = '/api/docs/oauth2-redirect.html';
/** What the page asks for when a person signs in: who they are, and the API as they may use it. */
export const apiDocsScopes = 'openid read write';

export type ApiDocsOptions = { readonly clientId?: string };

/**
 * GET /api/schema/ (the OpenAPI 3.1 document) and GET /api/docs/ (Swagger UI from
 * swagger-ui-dist, every asset served from here: deployments may be offline). Both are
 * public: the interface itself is no secret. A person signs in from the page through the
 * service's own OAuth server (authorization code + PKCE, public client) and tries calls
 * with the token (docs/api-docs.md).
 */
export function mountApiDocs(app: Express, publicUrl: string, options: ApiDocsOptions = {}): void {
  const document = buildOpenApiDocument(allContracts, { publicUrl, title: apiTitle, version: apiVersion, sessionCookieName: sessionCookie(publicUrl).name });
  const ui = swaggerUi();
  const init = initScript(publicUrl, options.clientId ?? apiDocsClientId);

  app.get('/api/schema/', (_req, res) => {
    res.type('application/json').send(JSON.stringify(document));
  });
  app.get('/api/docs/', (_req, res) => {
    // The sign-in popup must keep its opener: it hands the code back through window.opener.
    res.set('Content-Security-Policy', docsPagePolicy).set('Cross-Origin-Opener-Policy', 'same-origin-allow-popups').type('html').send(docsPage);
  });
  app.get('/api/docs/init.js', (_req, res) => {
    res.set('Cache-Control', 'no-cache').type('text/javascript').send(init);
  });
  app.get(apiDocsRedirectPath, (_req, res) => {
    // No Cross-Origin-Opener-Policy here: with one, Chromium would cut the popup off from the page that opened it.
    res.removeHeader('Cross-Origin-Opener-Policy');
    res.set('Content-Security-Policy', ui.redirectPolicy).set('Cache-Control', 'no-store').type('html').send(ui.redirectPage);
  });
  app.get('/api/docs/oauth2-redirect.js', (_req, res) => {
    res.sendFile(path.join(ui.dir, 'oauth2-redirect.js'), { headers: { 'Cache-Control': 'no-cache' } });
  });
  // Only the files the page loads: the package also holds a demo page pointing at a public petstore.
  const assets = express.static(ui.dir, { index: false, redirect: false, fallthrough: true });
  app.use('/api/docs/assets', (req, res, next) => (servedAssets.has(req.path.slice(1)) ? assets(req, res, next) : next()));
}

const servedAssets = new Set(['swagger-ui-bundle.js', 'swagger-ui.css', 'index.css', 'favicon-32x32.png', 'favicon-16x16.png']);

/** swagger-ui-dist's folder, found without loading its 1.5 MB bundle into Node. */
function swaggerUi() {
  const dir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const redirectPage = readFileSync(path.join(dir, 'oauth2-redirect.html'), 'utf8');
  // The page swagger-ui-dist ships loads oauth2-redirect.js beside it; older versions had
  // the same code inline, which would run here by its hash.
  const inlineScripts = [...redirectPage.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => sha256(m[1] ?? ''));
  const redirectPolicy = ["default-src 'none'", ['script-src', "'self'", ...inlineScripts].join(' '), "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"].join('; ');
  return { dir, redirectPage, redirectPolicy };
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** The Swagger UI start-up, as a served script: the page's policy allows no inline script. */
function initScript(publicUrl: string, clientId: string): string {
  const config = {
    url: '/api/schema/',
    dom_id: '#swagger-ui',
    deepLinking: true,
    layout: 'BaseLayout',
    // No badge from the public validator service: nothing leaves this origin.
    validatorUrl: null,
    oauth2RedirectUrl: `${publicUrl}${apiDocsRedirectPath}`,
  };
  return `'use strict';
window.ui = SwaggerUIBundle(Object.assign(${JSON.stringify(config)}, { presets: [SwaggerUIBundle.presets.apis] }));
window.ui.initOAuth(${JSON.stringify({ clientId, usePkceWithAuthorizationCodeGrant: true, scopes: apiDocsScopes })});
`;
}

const docsPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`${apiTitle} ${apiVersion}`)}</title>
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
<link rel="stylesheet" href="/api/docs/assets/index.css">
<link rel="icon" type="image/png" href="/api/docs/assets/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="/api/docs/assets/favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="swagger-ui"><noscript><p>${escapeHtml(apiTitle)}: this page needs JavaScript. The machine-readable document is at <a href="/api/schema/">/api/schema/</a>.</p></noscript></div>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script>
</body>
</html>`;

/**
 * Scripts and styles of this origin only; images also as data: URIs (swagger-ui's icons
 * are inlined in its stylesheet). No 'unsafe-inline' for styles: swagger-ui sets its
 * inline styles through the DOM (React style props), which a policy does not govern, and
 * adds no <style> element (the browser test fails on any refusal). connect-src 'self'
 * covers the schema, the token endpoint and the calls a person tries. Nothing may frame
 * the page (docs/api-docs.md, docs/security.md).
 */
export const docsPagePolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
