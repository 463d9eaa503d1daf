import { clientsCreate, createApp, usersCreate } from '@cairn/cli';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.ts';
import { BrowserAgent, pkcePair } from './oauth-driver.ts';

const password = 'a long enough password';

describe('the web session cookie', () => {
  let h: Harness;
  let secure: Harness;
  const email = 'grace@example.org';
  let clientId: string;
  let secureClientId = '';

  beforeAll(async () => {
    // Requests come through a trusted proxy here, so each may carry its own client address.
    h = await startHarness('all', { CAIRN_TRUSTED_PROXIES: '127.0.0.1/32,::1/128,::ffff:127.0.0.1/128' });
    secure = await startHarness('all', { CAIRN_PUBLIC_URL: 'https://cairn.test' });
    for (const harness of [h, secure]) {
      await usersCreate(harness.resources, ['--email', email, '--name', 'Grace', '--password', password, '--system-admin']);
    }
    clientId = ((await clientsCreate(h.resources, ['--name', 'Web', '--public', '--redirect-uri', 'http://127.0.0.1:9/cb'])) as { client_id: string }).client_id;
    const secureClient = (await clientsCreate(secure.resources, ['--name', 'Web', '--public', '--redirect-uri', 'http://127.0.0.1:9/cb'])) as { client_id: string };
    secureClientId = secureClient.client_id;
  });
  afterAll(async () => {
    await h.close();
    await secure.close();
  });

  /** Signs in through the sign-in page and answers the Set-Cookie of the session. */
  async function signIn(harness: Harness, client: string, who = email, secret = password, from?: string) {
    const { challenge } = pkcePair();
    const browser = new BrowserAgent(harness.commandApp);
    const started = await browser.authorize({ client_id: client, response_type: 'code', redirect_uri: 'http://127.0.0.1:9/cb', scope: 'read write', code_challenge: challenge, code_challenge_method: 'S256' });
    const uid = /\/oauth\/interaction\/([^/?]+)/.exec(String(started.headers['location']))?.[1] ?? '';
    const response = await browser.agent
      .post(`/oauth/interaction/${uid}/login`)
      .set('X-Forwarded-For', from ?? '203.0.113.10')
      .type('form')
      .send({ email: who, password: secret });
    const setCookie = ([] as string[]).concat(response.headers['set-cookie'] ?? []).find((c) => c.startsWith('cairn_session=') || c.startsWith('__Host-cairn_session='));
    return { response, setCookie, cookie: setCookie?.split(';')[0] ?? '' };
  }

  it('is set at sign-in: HttpOnly, SameSite=Lax, not Secure over local http', async () => {
    const { setCookie } = await signIn(h, clientId);
    expect(setCookie).toMatch(/^cairn_session=[A-Za-z0-9_-]{43};/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    expect(setCookie).toContain('Path=/');
    expect(setCookie).not.toContain('Secure');
    expect(setCookie).not.toContain('Domain=');
  });

  it('is __Host- prefixed and Secure outside local development', async () => {
    // Over https the OAuth server's own cookies are Secure too, which a cookie jar keeps
    // off plain http: carry them by hand.
    const { challenge } = pkcePair();
    const started = await request(secure.commandApp)
      .get('/oauth/authorize')
      .query({ client_id: secureClientId, response_type: 'code', redirect_uri: 'http://127.0.0.1:9/cb', scope: 'read write', code_challenge: challenge, code_challenge_method: 'S256' })
      .expect(303);
    const jar = ([] as string[]).concat(started.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
    const uid = /\/oauth\/interaction\/([^/?]+)/.exec(String(started.headers['location']))?.[1] ?? '';
    const response = await request(secure.commandApp).post(`/oauth/interaction/${uid}/login`).set('Cookie', jar).type('form').send({ email, password }).expect(303);
    const setCookie = ([] as string[]).concat(response.headers['set-cookie'] ?? []).find((c) => c.startsWith('__Host-cairn_session='));
    expect(setCookie).toMatch(/^__Host-cairn_session=[A-Za-z0-9_-]{43};/);
    expect(setCookie).toContain('Secure');
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    expect(setCookie).toContain('Path=/');
  });

  it('authenticates API reads and same-origin writes (cookieAuthCsrfExempt)', async () => {
    const { cookie } = await signIn(h, clientId);
    const me = await request(h.queryApp).get('/api/auth/session/').set('Cookie', cookie).expect(200);
    expect(me.body).toMatchObject({ email, authenticated_by: 'session' });
    await request(h.commandApp).post('/api/funding-agencies/').set('Cookie', cookie).set('Origin', 'http://cairn.test').send({ name: 'Same origin' }).expect(201);
    await request(h.commandApp).post('/api/funding-agencies/').set('Cookie', cookie).set('Sec-Fetch-Site', 'same-origin').send({ name: 'Same origin, no Origin' }).expect(201);
  });

  it('refuses cross-site cookie-authenticated writes: Sec-Fetch-Site cross-site, a foreign Origin, or neither header', async () => {
    const { cookie } = await signIn(h, clientId);
    const attempts = [
      request(h.commandApp).post('/api/funding-agencies/').set('Cookie', cookie).set('Sec-Fetch-Site', 'cross-site').send({ name: 'x' }),
      request(h.commandApp).post('/api/funding-agencies/').set('Cookie', cookie).set('Origin', 'http://cairn.test').set('Sec-Fetch-Site', 'cross-site').send({ name: 'x' }),
      request(h.commandApp).post('/api/funding-agencies/').set('Cookie', cookie).set('Origin', 'https://evil.example').send({ name: 'x' }),
      request(h.commandApp).post('/api/funding-agencies/').set('Cookie', cookie).send({ name: 'x' }),
      request(h.commandApp).delete('/api/auth/session/').set('Cookie', cookie),
    ];
    for (const attempt of attempts) {
      const response = await attempt.expect(403);
      expect(response.body.code).toBe('cross_site_request');
    }
    // Reads need no origin check, and bearer tokens are not cookies: no check either.
    await request(h.queryApp).get('/api/funding-agencies/').set('Cookie', cookie).set('Sec-Fetch-Site', 'cross-site').expect(200);
  });

  it('signs out everywhere: the cookie stops working in every instance', async () => {
    const { cookie } = await signIn(h, clientId);
    await request(h.queryApp).get('/api/auth/session/').set('Cookie', cookie).expect(200);
    const out = await request(h.commandApp).delete('/api/auth/session/').set('Cookie', cookie).set('Origin', 'http://cairn.test').expect(204);
    expect(String(out.headers['set-cookie'])).toMatch(/cairn_session=;.*Max-Age=0/);
    await request(h.queryApp).get('/api/auth/session/').set('Cookie', cookie).expect(401);
    // Another instance (its own cache) refuses it too.
    await request(createApp(h.resources, 'query')).get('/api/auth/session/').set('Cookie', cookie).expect(401);
  });

  it('answers a wrong password and an unknown e-mail alike, then locks the account', async () => {
    const wrong = await signIn(h, clientId, email, 'not the password');
    const unknown = await signIn(h, clientId, 'nobody@example.org', 'not the password');
    expect(wrong.response.status).toBe(401);
    expect(unknown.response.status).toBe(401);
    expect(wrong.setCookie).toBeUndefined();
    const text = (html: string) => html.replace(/value="[^"]*"/g, '').replace(/\/oauth\/interaction\/[^/"]+/g, '');
    expect(text(wrong.response.text)).toBe(text(unknown.response.text));
    expect(wrong.response.text).toContain('role="alert"');
  });

  it('locks an account after repeated failures from many addresses, even for the right password', async () => {
    await usersCreate(h.resources, ['--email', 'locked@example.org', '--name', 'Locked', '--password', password]);
    for (let i = 0; i < 5; i += 1) expect((await signIn(h, clientId, 'locked@example.org', `wrong ${i}`, `198.51.100.${i + 1}`)).response.status).toBe(401);
    const refused = await signIn(h, clientId, 'locked@example.org', password, '198.51.100.77');
    expect(refused.response.status).toBe(429);
    expect(Number(refused.response.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.setCookie).toBeUndefined();
    // The same for an address nobody has: no way to tell which accounts exist.
    for (let i = 0; i < 5; i += 1) await signIn(h, clientId, 'ghost@example.org', `wrong ${i}`, `198.51.100.${i + 20}`);
    expect((await signIn(h, clientId, 'ghost@example.org', 'anything', '198.51.100.99')).response.status).toBe(429);
  });

  it('answers malformed sign-in and token input with a 4xx, never a 500', async () => {
    expect((await signIn(h, clientId, 'nul\u0000@example.org', 'x', '192.0.2.80')).response.status).toBe(401);
    for (const form of [
      { grant_type: 'authorization_code', code: 'a\u0000b', client_id: clientId, redirect_uri: 'http://127.0.0.1:9/cb', code_verifier: 'x'.repeat(43) },
      { grant_type: 'refresh_token', refresh_token: '\u0000', client_id: clientId },
      { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: 'x\u0000', client_id: 'cairn-cli' },
    ]) {
      const response = await request(h.commandApp).post('/oauth/token').type('form').send(form);
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('invalid_grant');
    }
    const garbage = await request(h.commandApp).post('/oauth/token').set('Content-Type', 'application/x-www-form-urlencoded').send('%%%');
    expect(garbage.status).toBeLessThan(500);
  });

  it('limits failures per address across accounts', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 22; i += 1) statuses.push((await signIn(h, clientId, `someone${i}@example.org`, 'wrong', '192.0.2.55')).response.status);
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(20)).toEqual([429, 429]);
    // Another address is not affected.
    expect((await signIn(h, clientId, email, password, '192.0.2.56')).response.status).toBe(303);
  });
});

