import { randomUUID } from 'node:crypto';
import { clientsCreate } from '@cairn/cli';
import { createLogger, startAuthPurge } from '@cairn/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.ts';
import { pkcePair } from './oauth-driver.ts';

/**
 * Issue 23, finding 3: every route that needs no token bounds the size of what it is sent
 * and the requests one client address may send; what anonymous visitors make the service
 * store is bounded per address and purged at its expiry (docs/sign-in.md).
 */
const requestsPerMinute = 15;
const startsPerMinute = 5;
const redirectUri = 'https://app.example.org/cb';

type Call = (app: request.Agent | ReturnType<typeof request>, address: string) => request.Test;

describe('anonymous endpoints: bounds and budgets', () => {
  let h: Harness;
  let clientId: string;
  let lastAddress = 0;
  /** A fresh client address (TEST-NET-2), so that each case starts with a whole budget. */
  const newAddress = () => `198.51.100.${(lastAddress += 1)}`;
  const stored = async () => {
    const { rows } = await h.resources.pool.query<{ rows: string; bytes: string }>('select count(*) as rows, coalesce(sum(pg_column_size(payload)), 0) as bytes from oidc_payloads');
    return { rows: Number(rows[0]?.rows), bytes: Number(rows[0]?.bytes) };
  };
  const authorizeParams = () => ({ client_id: clientId, response_type: 'code', redirect_uri: redirectUri, scope: 'read', code_challenge: pkcePair().challenge, code_challenge_method: 'S256', state: 's' });

  /** Every route reachable without a token; `starts`: it may store sign-in state. */
  const routes: { name: string; starts: boolean; call: Call }[] = [
    { name: 'GET /.well-known/openid-configuration', starts: false, call: (a, ip) => a.get('/.well-known/openid-configuration').set('X-Forwarded-For', ip) },
    { name: 'GET /oauth/jwks', starts: false, call: (a, ip) => a.get('/oauth/jwks').set('X-Forwarded-For', ip) },
    { name: 'POST /oauth/token', starts: false, call: (a, ip) => a.post('/oauth/token').set('X-Forwarded-For', ip).type('form').send({ grant_type: 'refresh_token', refresh_token: 'nothing', client_id: clientId }) },
    { name: 'POST /oauth/revoke', starts: false, call: (a, ip) => a.post('/oauth/revoke').set('X-Forwarded-For', ip).type('form').send({ token: 'nothing', client_id: clientId }) },
    { name: 'POST /oauth/introspect', starts: false, call: (a, ip) => a.post('/oauth/introspect').set('X-Forwarded-For', ip).type('form').send({ token: 'nothing', client_id: clientId }) },
    { name: 'POST /oauth/par', starts: true, call: (a, ip) => a.post('/oauth/par').set('X-Forwarded-For', ip).type('form').send(authorizeParams()) },
    { name: 'POST /oauth/device/auth', starts: true, call: (a, ip) => a.post('/oauth/device/auth').set('X-Forwarded-For', ip).type('form').send({ client_id: 'cairn-cli' }) },
    { name: 'GET /oauth/authorize', starts: true, call: (a, ip) => a.get('/oauth/authorize').set('X-Forwarded-For', ip).query(authorizeParams()) },
    { name: 'GET /oauth/device', starts: true, call: (a, ip) => a.get('/oauth/device').set('X-Forwarded-For', ip) },
    { name: 'GET /oauth/interaction/{uid}', starts: false, call: (a, ip) => a.get('/oauth/interaction/unknown').set('X-Forwarded-For', ip) },
    { name: 'POST /oauth/interaction/{uid}/login', starts: false, call: (a, ip) => a.post('/oauth/interaction/unknown/login').set('X-Forwarded-For', ip).type('form').send({ email: 'a@example.org', password: 'x' }) },
    { name: 'GET /api/docs/', starts: false, call: (a, ip) => a.get('/api/docs/').set('X-Forwarded-For', ip) },
    { name: 'GET /api/schema/', starts: false, call: (a, ip) => a.get('/api/schema/').set('X-Forwarded-For', ip) },
    { name: 'GET /api/permissions/flags/', starts: false, call: (a, ip) => a.get('/api/permissions/flags/').set('X-Forwarded-For', ip) },
    {
      name: 'GET download link',
      starts: false,
      call: (a, ip) => a.get(`/api/assets/${randomUUID()}/content/${randomUUID()}/download/`).set('X-Forwarded-For', ip).query({ expires: '1', signature: 'forged' }),
    },
  ];

  beforeAll(async () => {
    h = await startHarness('all', {
      CAIRN_TRUSTED_PROXIES: '127.0.0.1/32,::1/128,::ffff:127.0.0.1/128',
      CAIRN_OAUTH_STARTS_PER_MINUTE: String(startsPerMinute),
      CAIRN_ANONYMOUS_REQUESTS_PER_MINUTE: String(requestsPerMinute),
    });
    clientId = ((await clientsCreate(h.resources, ['--name', 'Public app', '--public', '--redirect-uri', redirectUri])) as { client_id: string }).client_id;
  });
  afterAll(async () => h?.close());

  it.each(routes)('$name: past the budget of one address, 429 with Retry-After; other addresses unaffected', async ({ call, starts, name }) => {
    const app = request(h.commandApp);
    const address = newAddress();
    const budget = starts ? startsPerMinute : requestsPerMinute;
    const statuses: number[] = [];
    for (let i = 0; i < budget; i += 1) statuses.push((await call(app, address)).status);
    expect(statuses.filter((s) => s === 429 || s >= 500), `${name}: ${statuses.join(',')}`).toEqual([]);
    for (let i = 0; i < 3; i += 1) {
      const limited = await call(app, address);
      expect(limited.status, name).toBe(429);
      const retryAfter = Number(limited.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.body).toMatchObject({ status: 429, code: 'rate_limited' });
      expect(typeof limited.body.detail).toBe('string');
      if (name.includes('/oauth/') || name.includes('/.well-known/')) expect(limited.body.error).toBe('temporarily_unavailable');
    }
    expect((await call(app, newAddress())).status).not.toBe(429);
  });

  it('counts an IPv6 /64 as one address', async () => {
    const app = request(h.queryApp);
    const statuses: number[] = [];
    for (let i = 1; i <= requestsPerMinute + 1; i += 1) statuses.push((await app.get('/api/permissions/flags/').set('X-Forwarded-For', `2001:db8:0:7::${i.toString(16)}`)).status);
    expect(statuses.at(-1)).toBe(429);
  });

  describe('oversized parameters are refused and nothing is stored', () => {
    const long = 'x'.repeat(5000);
    const oauthPosts: { path: string; params: () => Record<string, string> }[] = [
      { path: '/oauth/par', params: () => authorizeParams() },
      { path: '/oauth/authorize', params: () => authorizeParams() },
      { path: '/oauth/device/auth', params: () => ({ client_id: 'cairn-cli' }) },
      { path: '/oauth/token', params: () => ({ grant_type: 'refresh_token', refresh_token: 'nothing', client_id: clientId }) },
      { path: '/oauth/revoke', params: () => ({ token: 'nothing', client_id: clientId }) },
      { path: '/oauth/introspect', params: () => ({ token: 'nothing', client_id: clientId }) },
    ];

    it.each(oauthPosts)('POST $path', async ({ path, params }) => {
      const before = await stored();
      const app = request(h.commandApp);
      const send = (body: Record<string, string>) => app.post(path).set('X-Forwarded-For', newAddress()).type('form').send(body);

      const longValue = await send({ ...params(), state: long });
      expect(longValue.status).toBe(400);
      expect(longValue.body).toMatchObject({ status: 400, code: 'parameter_too_long', error: 'invalid_request' });
      const longName = await send({ ...params(), [long]: '1' });
      expect(longName.status).toBe(400);
      const many = await send({ ...params(), ...Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`p${i}`, '1'])) });
      expect(many.status).toBe(400);
      // Each parameter within its bound, the whole over 16 KiB.
      const large = await send({ ...params(), ...Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, 'y'.repeat(1000)])) });
      expect(large.status).toBe(413);
      expect(large.body).toMatchObject({ status: 413, code: 'payload_too_large', error: 'invalid_request' });
      const query = await app.post(`${path}?state=${long}`).set('X-Forwarded-For', newAddress()).type('form').send(params());
      expect(query.status).toBe(400);

      expect(await stored()).toEqual(before);
    });

    it('GET /oauth/authorize and the device page with an oversized query', async () => {
      const before = await stored();
      const app = request(h.commandApp);
      expect((await app.get('/oauth/authorize').set('X-Forwarded-For', newAddress()).query({ ...authorizeParams(), nonce: long })).status).toBe(400);
      expect((await app.get('/oauth/device').set('X-Forwarded-For', newAddress()).query({ user_code: long })).status).toBe(400);
      // Every parameter within its bound, the query over 4,096 characters.
      const filler = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`f${i}`, 'z'.repeat(900)]));
      expect((await app.get('/oauth/authorize').set('X-Forwarded-For', newAddress()).query({ ...authorizeParams(), ...filler })).status).toBe(400);
      expect(await stored()).toEqual(before);
    });

    it('the sign-in form, the docs, the schema, the flags and download links, in the error shape', async () => {
      const before = await stored();
      const app = request(h.commandApp);
      const login = await app.post('/oauth/interaction/unknown/login').set('X-Forwarded-For', newAddress()).type('form').send({ email: 'a@example.org', password: 'p'.repeat(20_000) });
      expect(login.status).toBe(413);
      for (const path of ['/api/docs/', '/api/docs/init.js', '/api/schema/', '/api/permissions/flags/', `/api/assets/${randomUUID()}/content/${randomUUID()}/download/`]) {
        const res = await app.get(path).set('X-Forwarded-For', newAddress()).query({ expires: '1', signature: long });
        expect(res.status, path).toBe(400);
        expect(res.body, path).toEqual({ status: 400, code: 'parameter_too_long', detail: expect.any(String) });
      }
      const body = await app.get('/api/docs/').set('X-Forwarded-For', newAddress()).set('Content-Type', 'text/plain').send('b'.repeat(20_000));
      expect(body.status).toBe(413);
      expect(await stored()).toEqual(before);
    });
  });

  it('bounds what one address can make the OAuth server store', async () => {
    const before = await stored();
    const app = request(h.commandApp);
    const address = newAddress();
    // The largest pushed request accepted: every parameter at its bound, the body just under 16 KiB.
    const largest = { ...authorizeParams(), scope: 'openid read', state: 's'.repeat(1024), nonce: 'n'.repeat(1024), login_hint: 'l'.repeat(1024), ui_locales: 'u'.repeat(1024) };
    const statuses: number[] = [];
    for (let i = 0; i < 40; i += 1) statuses.push((await app.post('/oauth/par').set('X-Forwarded-For', address).type('form').send(largest)).status);
    expect(statuses.filter((s) => s === 201).length, statuses.join(',')).toBe(startsPerMinute);
    const after = await stored();
    expect(after.rows - before.rows).toBeLessThanOrEqual(startsPerMinute);
    expect(after.bytes - before.bytes).toBeLessThanOrEqual(startsPerMinute * 16_384);
  });

  it('purges expired sign-in state at its expiry, in batches, at each tick', async () => {
    const pool = h.resources.pool;
    await pool.query(
      `insert into oidc_payloads (model, id, payload, expires_at)
       select 'PushedAuthorizationRequest', 'expired-par-' || n, '{}', now() - interval '1 minute' from generate_series(1, 2500) n`,
    );
    await pool.query(
      `insert into oidc_payloads (model, id, payload, expires_at) values
        ('Interaction', 'expired-interaction', '{}', now() - interval '1 minute'),
        ('Session', 'expired-session', '{}', now() - interval '1 minute'),
        ('DeviceCode', 'expired-device-code', '{}', now() - interval '1 minute'),
        ('PushedAuthorizationRequest', 'live-par', '{}', now() + interval '1 minute'),
        ('AccessToken', 'recently-expired-token', '{}', now() - interval '1 minute')`,
    );
    await pool.query("insert into rate_limit_counters (key, window_started_at, count) values ('anonymous:address:203.0.113.250', now() - interval '5 minutes', 9)");
    const stop = startAuthPurge(pool, createLogger('silent'), 60_000, { batchSize: 1000, counterWindowSeconds: 60 });
    try {
      const left = async () =>
        (await pool.query<{ id: string }>("select id from oidc_payloads where id like 'expired-%' or id in ('live-par', 'recently-expired-token') order by id")).rows.map((r) => r.id);
      const deadline = Date.now() + 10_000;
      while ((await left()).length > 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await left()).toEqual(['live-par', 'recently-expired-token']);
      expect((await pool.query("select 1 from rate_limit_counters where key = 'anonymous:address:203.0.113.250'")).rowCount).toBe(0);
    } finally {
      stop();
    }
  });
});
