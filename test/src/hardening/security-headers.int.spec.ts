import { createOpsApp } from '@cairn/cli';
import { createHash } from 'node:crypto';
import { clientsCreate } from '@cairn/cli';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';

/** Issue 14, part 2: the usual security headers on every answer, stricter for HTML pages (docs/security.md). */

type Policy = Record<string, string[]>;
const policyOf = (header: unknown): Policy =>
  Object.fromEntries(
    String(header ?? '')
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...values]) => [name, values]),
  ) as Policy;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

describe('security headers', () => {
  let h: Harness;
  let member: User;

  beforeAll(async () => {
    h = await startHarness('all');
    member = await h.createUser();
  });
  afterAll(async () => h.close());

  const expectEveryAnswerHeaders = (res: request.Response) => {
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-powered-by']).toBeUndefined();
    // The public URL of the tests is http: no HSTS.
    expect(res.headers['strict-transport-security']).toBeUndefined();
    const policy = policyOf(res.headers['content-security-policy']);
    expect(policy['frame-ancestors']).toEqual(["'none'"]);
    expect(policy['default-src']).toEqual(["'none'"]);
    return policy;
  };

  it('are on JSON answers, and on errors of every kind', async () => {
    const app = request(h.commandApp);
    const answers = [
      await app.get('/api/funding-agencies/').set(bearer(member)).expect(200),
      await app.get('/api/schema/').expect(200),
      await app.get('/api/permissions/flags/').expect(200),
      await app.get('/api/funding-agencies/').expect(401),
      await app.post('/api/funding-agencies/').set(bearer(member)).send({ name: 'x' }).expect(403),
      await app.get('/api/nothing-here/').expect(404),
      await app.put('/api/funding-agencies/').set(bearer(member)).send({}).expect(405),
      await app.post('/api/funding-agencies/').set(bearer(member)).set('Content-Type', 'application/json').send('{"name": ').expect(400),
      await app.post('/api/funding-agencies/').set(bearer(member)).set('Content-Type', 'text/plain').send('x').expect(415),
    ];
    for (const res of answers) {
      const policy = expectEveryAnswerHeaders(res);
      expect(policy['script-src'], `${res.status} ${res.text}`).toBeUndefined();
    }
  });

  it('are on the probes and the metrics too, on the API port and the operations port', async () => {
    const api = request(h.commandApp);
    // /metrics is not on the API port (docs/observability.md): its 404 carries them all the same.
    for (const [path, status] of [['/healthz', 200], ['/readyz', 200], ['/metrics', 404]] as const) {
      const res = await api.get(path);
      expect(res.status, path).toBe(status);
      expectEveryAnswerHeaders(res);
    }
    const ops = request(createOpsApp(h.resources));
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      const res = await ops.get(path);
      expect(res.status, path).toBe(200);
      expectEveryAnswerHeaders(res);
    }
  });

  it('keep the API page from being framed, and let it run only scripts and styles of its own origin', async () => {
    const res = await request(h.queryApp).get('/api/docs/').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const policy = expectEveryAnswerHeaders(res);
    expect(res.text).not.toMatch(/<script>|<style>/);
    expect(policy['script-src']).toEqual(["'self'"]);
    expect(policy['style-src']).toEqual(["'self'"]);
    expect(policy['connect-src']).toEqual(["'self'"]);
    expect(res.headers['content-security-policy']).not.toContain('unsafe-');
    // Swagger UI signs in through a popup that must keep its opener (docs/api-docs.md).
    expect(res.headers['cross-origin-opener-policy']).toBe('same-origin-allow-popups');
    const init = await request(h.queryApp).get('/api/docs/init.js').expect(200);
    expect(init.text).toContain('"url":"/api/schema/"');
    const redirect = await request(h.queryApp).get('/api/docs/oauth2-redirect.html').expect(200);
    expect(expectEveryAnswerHeaders(redirect)['script-src']).toContain("'self'");
    expect(redirect.headers['cross-origin-opener-policy']).toBeUndefined();
  });

  it('keep the sign-in pages’ own policies', async () => {
    const device = await request(h.commandApp).get('/oauth/device').expect(200);
    const policy = expectEveryAnswerHeaders(device);
    expect(policy['style-src']).toEqual(["'unsafe-inline'"]);
    expect(policy['script-src']).toBeUndefined();
  });

  it('let the OAuth server’s form_post answer run its one inline script, by its hash', async () => {
    const client = (await clientsCreate(h.resources, ['--name', 'Form post', '--redirect-uri', 'https://app.example.org/cb'])) as { client_id: string };
    // No PKCE challenge: the error goes back to the client, posted by the form_post page.
    const res = await request(h.commandApp)
      .get('/oauth/authorize')
      .query({ client_id: client.client_id, response_type: 'code', redirect_uri: 'https://app.example.org/cb', response_mode: 'form_post', scope: 'read', state: 'abc' });
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('action="https://app.example.org/cb"');
    const policy = expectEveryAnswerHeaders(res);
    const script = /<script>([\s\S]*?)<\/script>/.exec(res.text)?.[1] ?? '';
    expect(script).toContain('submit()');
    expect(policy['script-src']).toEqual(["'self'", sha256(script)]);
    expect(policy['form-action']).toBeUndefined();
  });
});
