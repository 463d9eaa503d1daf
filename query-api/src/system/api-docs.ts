import { allContracts, apiTitle, apiVersion } from '@cairn/contract';
import { buildOpenApiDocument, sessionCookie } from '@cairn/platform';
import { createHash } from 'node:crypto';
import type { Express } from 'express';

/**
 * GET /api/schema/ (the OpenAPI 3.1 document) and GET /api/docs/ (a page that renders it
 * with no external assets). Both are public: the interface itself is no secret.
 */
export function mountApiDocs(app: Express, publicUrl: string): void {
  const document = buildOpenApiDocument(allContracts, { publicUrl, title: apiTitle, version: apiVersion, sessionCookieName: sessionCookie(publicUrl).name });
  app.get('/api/schema/', (_req, res) => {
    res.type('application/json').send(JSON.stringify(document));
  });
  app.get('/api/docs/', (_req, res) => {
    res.set('Content-Security-Policy', docsPagePolicy).type('html').send(docsPage);
  });
}

const docsPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${apiTitle} ${apiVersion}</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 60rem; padding: 1rem 2rem; color: #1d2329; }
  h1 { font-size: 1.6rem; } h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #ccd; }
  details { border: 1px solid #dde; border-radius: 6px; margin: .4rem 0; padding: .3rem .7rem; }
  summary { cursor: pointer; } code, pre { font: 13px/1.4 ui-monospace, monospace; }
  pre { background: #f5f6f8; padding: .6rem; overflow: auto; }
  .m { display: inline-block; min-width: 4.5rem; font-weight: 700; text-transform: uppercase; }
  .get { color: #0b6e3d; } .post { color: #1450a3; } .patch, .put { color: #8a5a00; } .delete { color: #a3141f; }
</style>
</head>
<body>
<main>
<h1>${apiTitle} <small>${apiVersion}</small></h1>
<p>The machine-readable document is at <a href="/api/schema/">/api/schema/</a>.</p>
<div id="ops" aria-live="polite">Loading…</div>
</main>
<script>
fetch('/api/schema/').then(r => r.json()).then(doc => {
  const root = document.getElementById('ops');
  root.textContent = '';
  const byTag = {};
  for (const [path, item] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(item)) (byTag[op.tags[0]] ||= []).push({ path, method, op });
  for (const [tag, ops] of Object.entries(byTag)) {
    const h = document.createElement('h2'); h.textContent = tag; root.append(h);
    for (const { path, method, op } of ops) {
      const d = document.createElement('details');
      const s = document.createElement('summary');
      const m = document.createElement('span'); m.className = 'm ' + method; m.textContent = method;
      const c = document.createElement('code'); c.textContent = path;
      s.append(m, c, document.createTextNode(' ' + (op.summary || '')));
      const pre = document.createElement('pre'); pre.textContent = JSON.stringify(op, null, 2);
      d.append(s, pre); root.append(d);
    }
  }
}).catch(e => { document.getElementById('ops').textContent = 'Could not load the schema: ' + e; });
</script>
</body>
</html>`;

const inline = (tag: 'script' | 'style') => {
  const match = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(docsPage);
  if (!match) throw new Error(`the API page has no inline ${tag}`);
  return `'sha256-${createHash('sha256').update(match[1] ?? '').digest('base64')}'`;
};

/**
 * The page runs only its own inline script and style (by their hashes) and fetches only
 * /api/schema/; nothing may frame it (docs/security.md).
 */
export const docsPagePolicy = [
  "default-src 'none'",
  `script-src ${inline('script')}`,
  `style-src ${inline('style')}`,
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
