import { allContracts } from '@cairn/contract';
import { clientsCreate, createApp, usersCreate, type Resources } from '@cairn/cli';
import { purgeExpiredAuthState } from '@cairn/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestResources, startHarness, type Harness } from '../support/harness.ts';
import { basic, BrowserAgent, pkcePair } from './oauth-driver.ts';

const password = 'hardening password';
const deviceGrant = 'urn:ietf:params:oauth:grant-type:device_code';

/** Polls `probe` every 20 ms; answers how long it took to become true, or fails after `limitMs`. */
async function within(limitMs: number, probe: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (Date.now() - started <= limitMs) {
    if (await probe()) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`not within ${limitMs} ms`);
}

describe('sign-in hardening', () => {
  let h: Harness;
  let other: Resources;
  let client: { client_id: string; client_secret: string };
  const email = 'hard@example.org';

  beforeAll(async () => {
    h = await startHarness('all', { CAIRN_TRUSTED_PROXIES: '127.0.0.1/32,::1/128,::ffff:127.0.0.1/128' });
    // A second service instance: its own pool, its own caches, the same database.
    other = await openTestResources(h.databaseUrl);
    await usersCreate(h.resources, ['--email', email, '--name', 'Hard', '--password', password, '--system-admin']);
    client = (await clientsCreate(h.resources, ['--name', 'Web', '--redirect-uri', 'https://app.example.org/cb'])) as { client_id: string; client_secret: string };
  });
  afterAll(async () => {
    await other.close();
    await h.close();
  });

  const authorize = (overrides: Record<string, string> = {}) => {
    const { verifier, challenge } = pkcePair();
    const params = { client_id: client.client_id, response_type: 'code', redirect_uri: 'https://app.example.org/cb', code_challenge: challenge, code_challenge_method: 'S256', ...overrides };
    return { verifier, params };
  };
  const redeem = (code: string, verifier: string) =>
    request(h.commandApp).post('/oauth/token').set('Authorization', basic(client.client_id, client.client_secret)).type('form').send({ grant_type: 'authorization_code', code, redirect_uri: 'https://app.example.org/cb', code_verifier: verifier });

  it('refuses a parallel burst of guesses like a sequence of them', async () => {
    await usersCreate(h.resources, ['--email', 'burst@example.org', '--name', 'Burst', '--password', password]);
    const { params } = authorize({ scope: 'read' });
    const browsers = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const browser = new BrowserAgent(h.commandApp);
        const started = await browser.authorize(params);
        return { browser, uid: /\/oauth\/interaction\/([^/?]+)/.exec(String(started.headers['location']))?.[1] ?? '' };
      }),
    );
    const statuses = await Promise.all(
      browsers.map(({ browser, uid }, i) =>
        browser.agent
          .post(`/oauth/interaction/${uid}/login`)
          .set('X-Forwarded-For', `198.18.0.${i + 1}`)
          .type('form')
          .send({ email: 'burst@example.org', password: i === 11 ? password : `wrong ${i}` })
          .then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(6);
  });

  it('answers malformed sign-in posts and unknown resources with 4xx, never 500', async () => {
    const browser = new BrowserAgent(h.commandApp);
    const started = await browser.authorize(authorize({ scope: 'read' }).params);
    const uid = /\/oauth\/interaction\/([^/?]+)/.exec(String(started.headers['location']))?.[1] ?? '';
    const json = await browser.agent.post(`/oauth/interaction/${uid}/login`).send({ email, password });
    expect(json.status).toBe(401);
    const empty = await browser.agent.post(`/oauth/interaction/${uid}/login`);
    expect(empty.status).toBe(401);
    const crowded = await browser.agent.post(`/oauth/interaction/${uid}/login`).type('form').send(Array.from({ length: 30 }, (_, i) => `f${i}=x`).join('&'));
    expect(crowded.status).toBe(413);
    const confirm = await browser.agent.post(`/oauth/interaction/${uid}/confirm`).send('nonsense');
    expect(confirm.status).toBeLessThan(500);

    const evil = await new BrowserAgent(h.commandApp).authorize({ ...authorize({ scope: 'read' }).params, resource: 'https://evil.example/' });
    expect(evil.status).toBeLessThan(500);
    expect(new URL(String(evil.headers['location'])).searchParams.get('error')).toBe('invalid_target');
    const deviceEvil = await request(h.commandApp).post('/oauth/device/auth').type('form').send({ client_id: 'cairn-cli', resource: 'https://evil.example/' });
    expect(deviceEvil.status).toBe(400);
    expect(deviceEvil.body.error).toBe('invalid_target');

    const forged = await request(h.commandApp).post('/oauth/device').set('Cookie', '_session=forged; _session.sig=forged').type('form').send({ xsrf: 'x', user_code: 'BCDF-GHJK' });
    expect(forged.status).toBe(400);
  });

  it('gives read and write by default to a request that names no API scope', async () => {
    for (const scope of [undefined, 'openid']) {
      const { verifier, params } = authorize(scope ? { scope } : {});
      const { code } = await new BrowserAgent(h.commandApp).codeFor(params, email, password);
      const tokens = await redeem(code, verifier).expect(200);
      expect(tokens.body.scope.split(' ')).toEqual(expect.arrayContaining(['read', 'write']));
      await request(h.queryApp).get('/api/funding-agencies/').auth(tokens.body.access_token, { type: 'bearer' }).expect(200);
    }
    const device = await request(h.commandApp).post('/oauth/device/auth').type('form').send({ client_id: 'cairn-cli' }).expect(200);
    const stored = await h.resources.pool.query<{ payload: { params: { scope: string } } }>("select payload from oidc_payloads where model = 'DeviceCode' and id = $1", [device.body.device_code]);
    expect(stored.rows[0]?.payload.params.scope.split(' ')).toEqual(expect.arrayContaining(['read', 'write']));
  });

  it('answers an expired device code expired_token (RFC 8628)', async () => {
    const device = await request(h.commandApp).post('/oauth/device/auth').type('form').send({ client_id: 'cairn-cli', scope: 'read' }).expect(200);
    await h.resources.pool.query(
      "update oidc_payloads set payload = jsonb_set(payload, '{exp}', to_jsonb(extract(epoch from now())::int - 60)), expires_at = now() - interval '1 minute' where model = 'DeviceCode' and id = $1",
      [device.body.device_code],
    );
    const polled = await request(h.commandApp).post('/oauth/token').type('form').send({ grant_type: deviceGrant, device_code: device.body.device_code, client_id: 'cairn-cli' }).expect(400);
    expect(polled.body.error).toBe('expired_token');
  });

  it('refuses a revoked token, an ended session and a deactivated user in another instance within a second', async () => {
    const otherApp = createApp(other, 'query');
    const user = await h.createUser();
    await request(otherApp).get('/api/auth/session/').auth(user.token, { type: 'bearer' }).expect(200);
    await request(h.commandApp).post('/oauth/revoke').type('form').send({ token: user.token, client_id: 'cairn-cli' }).expect(200);
    await within(1000, async () => (await request(otherApp).get('/api/auth/session/').auth(user.token, { type: 'bearer' })).status === 401);

    const { verifier: _v, params } = authorize({ scope: 'read write' });
    const browser = new BrowserAgent(h.commandApp);
    const started = await browser.authorize(params);
    const signedIn = await browser.signIn(String(started.headers['location']), email, password);
    const cookie = ([] as string[]).concat(signedIn.headers['set-cookie'] ?? []).find((c) => c.startsWith('cairn_session='))?.split(';')[0] ?? '';
    await request(otherApp).get('/api/auth/session/').set('Cookie', cookie).expect(200);
    await request(h.commandApp).delete('/api/auth/session/').set('Cookie', cookie).set('Origin', 'http://cairn.test').expect(204);
    await within(1000, async () => (await request(otherApp).get('/api/auth/session/').set('Cookie', cookie)).status === 401);

    const admin = await h.createUser({ admin: true });
    const victim = await h.createUser();
    await request(otherApp).get('/api/auth/session/').auth(victim.token, { type: 'bearer' }).expect(200);
    await request(h.commandApp).patch(`/api/admin/users/${victim.id}/`).auth(admin.token, { type: 'bearer' }).send({ is_active: false }).expect(200);
    await within(1000, async () => (await request(otherApp).get('/api/auth/session/').auth(victim.token, { type: 'bearer' })).status === 401);
  });

  it('keeps oidc-provider development sign-in off', async () => {
    await request(h.commandApp).get('/interaction/anything').expect(404);
    const discovery = (await request(h.commandApp).get('/.well-known/openid-configuration').expect(200)).body;
    expect(discovery.response_types_supported).toEqual(['code']);
  });

  it('lets a client introspect only its own tokens', async () => {
    const otherClient = (await clientsCreate(h.resources, ['--name', 'Other', '--redirect-uri', 'https://other.example.org/cb'])) as { client_id: string; client_secret: string };
    const { verifier, params } = authorize({ scope: 'read' });
    const { code } = await new BrowserAgent(h.commandApp).codeFor(params, email, password);
    const token = (await redeem(code, verifier).expect(200)).body.access_token as string;
    const own = await request(h.commandApp).post('/oauth/introspect').set('Authorization', basic(client.client_id, client.client_secret)).type('form').send({ token }).expect(200);
    expect(own.body.active).toBe(true);
    const foreign = await request(h.commandApp).post('/oauth/introspect').set('Authorization', basic(otherClient.client_id, otherClient.client_secret)).type('form').send({ token }).expect(200);
    expect(foreign.body).toEqual({ active: false });
  });

  it('serves every operation of the interface, and the interface lists every served operation', () => {
    const served = (createApp(h.resources, 'all').locals['operationIds'] as string[]).slice().sort();
    expect(served).toEqual(allContracts.map((c) => c.operationId).sort());
  });

  it('purges expired authentication state', async () => {
    await h.resources.pool.query("insert into web_sessions (id_digest, user_id, expires_at) values ('gone', gen_random_uuid(), now() - interval '1 second')");
    await h.resources.pool.query("insert into oidc_payloads (model, id, payload, expires_at) values ('Session', 'old', '{}', now() - interval '2 days')");
    await h.resources.pool.query("insert into rate_limit_counters (key, window_started_at, count) values ('old-window', now() - interval '2 days', 3)");
    const removed = await purgeExpiredAuthState(h.resources.pool);
    expect(removed['web_sessions']).toBeGreaterThanOrEqual(1);
    expect(removed['oidc_payloads']).toBeGreaterThanOrEqual(1);
    expect(removed['rate_limit_counters']).toBeGreaterThanOrEqual(1);
    const left = await h.resources.pool.query("select 1 from web_sessions where id_digest = 'gone' union all select 1 from oidc_payloads where id = 'old'");
    expect(left.rows).toHaveLength(0);
  });
});
