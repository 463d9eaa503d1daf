import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiDocsClientId, mountApiDocs } from './api-docs.ts';

type Policy = Record<string, string[]>;
const policyOf = (header: string | null): Policy =>
  Object.fromEntries(
    String(header)
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name, values]),
  ) as Policy;

describe('the API page (Swagger UI) under its Content Security Policy', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = express();
    mountApiDocs(app, 'http://cairn.test');
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('runs no inline script or style, loads only assets of its own origin, and may not be framed', async () => {
    const res = await fetch(`${base}/api/docs/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    const policy = policyOf(res.headers.get('content-security-policy'));
    expect(policy['default-src']).toEqual(["'none'"]);
    expect(policy['script-src']).toEqual(["'self'"]);
    expect(policy['style-src']).toEqual(["'self'"]);
    expect(policy['connect-src']).toEqual(["'self'"]);
    expect(policy['frame-ancestors']).toEqual(["'none'"]);
    // The sign-in popup hands its code back through window.opener.
    expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin-allow-popups');

    expect(html).not.toMatch(/<script>|<style>|\son[a-z]+=|\sstyle=/i);
    const references = [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1] ?? '');
    expect(references).toContain('/api/docs/assets/swagger-ui-bundle.js');
    expect(references).toContain('/api/docs/init.js');
    for (const reference of references) {
      expect(reference).toMatch(/^\/api\//);
      expect((await fetch(`${base}${reference}`)).status, reference).toBe(200);
    }
  });

  it('starts Swagger UI from a served script: the schema, the redirect page and the PKCE client', async () => {
    const res = await fetch(`${base}/api/docs/init.js`);
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    const script = await res.text();
    expect(script).toContain('"url":"/api/schema/"');
    expect(script).toContain('"oauth2RedirectUrl":"http://cairn.test/api/docs/oauth2-redirect.html"');
    expect(script).toContain(`initOAuth({"clientId":"${apiDocsClientId}","usePkceWithAuthorizationCodeGrant":true,"scopes":"openid read write"})`);
  });

  it('serves the OAuth redirect page with a policy that lets exactly its scripts run', async () => {
    const res = await fetch(`${base}/api/docs/oauth2-redirect.html`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('cross-origin-opener-policy')).toBeNull();
    const html = await res.text();
    const policy = policyOf(res.headers.get('content-security-policy'));
    expect(policy['default-src']).toEqual(["'none'"]);
    expect(policy['frame-ancestors']).toEqual(["'none'"]);
    const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
    const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => hash(m[1] ?? ''));
    expect(policy['script-src']).toEqual(["'self'", ...inline]);
    for (const [, src] of html.matchAll(/<script src="([^"]*)"/g)) {
      expect((await fetch(new URL(src ?? '', `${base}/api/docs/oauth2-redirect.html`))).status, src).toBe(200);
    }
  });

  it('serves the viewer’s assets but not the rest of its package (its demo page)', async () => {
    const css = await fetch(`${base}/api/docs/assets/swagger-ui.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    for (const name of ['index.html', 'swagger-initializer.js', 'package.json', '../package.json']) {
      expect((await fetch(`${base}/api/docs/assets/${name}`)).status, name).toBe(404);
    }
  });
});
