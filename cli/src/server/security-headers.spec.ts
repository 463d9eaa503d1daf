import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { rawSecurityHeaders, securityHeaders } from './security-headers.ts';

/** The headers of one GET, lower-cased, from a server listening for that request only. */
async function headersOf(app: express.Express, path: string): Promise<Record<string, string>> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
    await res.arrayBuffer();
    expect(res.status).toBe(200);
    return Object.fromEntries(res.headers);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

function app(publicUrl: string) {
  const a = express();
  a.use(securityHeaders(publicUrl));
  a.get('/api/x/', (_req, res) => res.json({ ok: true }));
  a.get('/oauth/page', (_req, res) => res.type('html').send('<p>page</p>'));
  return a;
}

describe('security headers', () => {
  it('allow nothing and no framing on API answers', async () => {
    const headers = await headersOf(app('http://cairn.test'), '/api/x/');
    expect(headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'cross-origin-resource-policy': 'same-origin',
      'cross-origin-opener-policy': 'same-origin',
      'content-security-policy': "default-src 'none';base-uri 'none';form-action 'none';frame-ancestors 'none'",
    });
    expect(headers['strict-transport-security']).toBeUndefined();
  });

  it('let OAuth pages run hashed scripts of their own and keep their opener', async () => {
    const headers = await headersOf(app('http://cairn.test'), '/oauth/page');
    expect(headers['content-security-policy']).toBe("default-src 'none';script-src 'self';style-src 'unsafe-inline';base-uri 'none';frame-ancestors 'none'");
    expect(headers['cross-origin-opener-policy']).toBeUndefined();
    expect(headers['x-frame-options']).toBe('DENY');
  });

  it('send HSTS only behind an HTTPS public URL, for this host alone', async () => {
    const headers = await headersOf(app('https://cairn.example.org'), '/api/x/');
    expect(headers['strict-transport-security']).toBe('max-age=15552000');
  });

  it('are sent as text, the same, on the answers written without express', async () => {
    const headers = await headersOf(app('http://cairn.test'), '/api/x/');
    for (const [name, value] of Object.entries(rawSecurityHeaders)) expect(headers[name.toLowerCase()], name).toBe(value);
  });
});
