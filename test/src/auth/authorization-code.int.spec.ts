import { clientsCreate, usersCreate } from '@cairn/cli';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.ts';
import { basic, BrowserAgent, pkcePair } from './oauth-driver.ts';

const redirectUri = 'https://app.example.org/callback';
const password = 'correct horse battery staple';

describe('authorization code with PKCE', () => {
  let h: Harness;
  let client: { client_id: string; client_secret: string };
  let publicClient: { client_id: string };
  const email = 'ada@example.org';

  beforeAll(async () => {
    h = await startHarness('all');
    await usersCreate(h.resources, ['--email', email, '--name', 'Ada', '--password', password, '--system-admin']);
    client = (await clientsCreate(h.resources, ['--name', 'Web app', '--redirect-uri', redirectUri])) as { client_id: string; client_secret: string };
    publicClient = (await clientsCreate(h.resources, ['--name', 'Native app', '--public', '--redirect-uri', 'http://127.0.0.1:8765/callback'])) as { client_id: string };
  });
  afterAll(async () => h.close());

  const authorizeParams = (challenge: string, overrides: Record<string, string> = {}) => ({
    client_id: client.client_id,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: 'openid offline_access read write',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'state-123',
    ...overrides,
  });

  const redeem = (code: string, verifier: string) =>
    request(h.commandApp)
      .post('/oauth/token')
      .set('Authorization', basic(client.client_id, client.client_secret))
      .type('form')
      .send({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier });

  it('signs in through the pages, and the tokens work on the API and refresh', async () => {
    const { verifier, challenge } = pkcePair();
    const browser = new BrowserAgent(h.commandApp);
    const { code, state } = await browser.codeFor(authorizeParams(challenge), email, password);
    expect(state).toBe('state-123');
    const tokens = await redeem(code, verifier).expect(200);
    expect(tokens.body).toMatchObject({ token_type: 'Bearer', scope: expect.stringContaining('read') });
    // What was asked and granted, ID token and refresh token included (docs/identity-and-tokens.md).
    expect(tokens.body.scope.split(' ').sort()).toEqual(['offline_access', 'openid', 'read', 'write']);
    expect(tokens.body.refresh_token).toEqual(expect.any(String));
    expect(tokens.body.expires_in).toBeLessThanOrEqual(900);
    expect(tokens.body.id_token).toEqual(expect.any(String));

    const me = await request(h.queryApp).get('/api/auth/session/').auth(tokens.body.access_token, { type: 'bearer' }).expect(200);
    expect(me.body).toMatchObject({ email, authenticated_by: 'bearer', scopes: ['read', 'write'] });
    await request(h.commandApp).post('/api/funding-agencies/').auth(tokens.body.access_token, { type: 'bearer' }).send({ name: 'Via PKCE' }).expect(201);

    // openid shares the e-mail address.
    const claims = JSON.parse(Buffer.from(String(tokens.body.id_token).split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
    expect(claims['email']).toBe(email);

    const refreshed = await request(h.commandApp)
      .post('/oauth/token')
      .set('Authorization', basic(client.client_id, client.client_secret))
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token })
      .expect(200);
    expect(refreshed.body.access_token).not.toBe(tokens.body.access_token);
    expect(refreshed.body.scope.split(' ').sort()).toEqual(['offline_access', 'openid', 'read', 'write']);
    expect(refreshed.body.refresh_token).not.toBe(tokens.body.refresh_token);
    await request(h.queryApp).get('/api/auth/session/').auth(refreshed.body.access_token, { type: 'bearer' }).expect(200);
  });

  it('rotates refresh tokens and revokes the whole family when an old one is reused', async () => {
    const { verifier, challenge } = pkcePair();
    const { code } = await new BrowserAgent(h.commandApp).codeFor(authorizeParams(challenge), email, password);
    const first = (await redeem(code, verifier).expect(200)).body;
    const refresh = (token: string) =>
      request(h.commandApp).post('/oauth/token').set('Authorization', basic(client.client_id, client.client_secret)).type('form').send({ grant_type: 'refresh_token', refresh_token: token });
    const second = (await refresh(first.refresh_token).expect(200)).body;
    await request(h.queryApp).get('/api/auth/session/').auth(second.access_token, { type: 'bearer' }).expect(200);

    // A refresh asking for another resource is refused without spending the token.
    const elsewhere = await request(h.commandApp)
      .post('/oauth/token')
      .set('Authorization', basic(client.client_id, client.client_secret))
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: second.refresh_token, resource: 'https://evil.example/' })
      .expect(400);
    expect(elsewhere.body.error).toBe('invalid_target');
    await request(h.queryApp).get('/api/auth/session/').auth(second.access_token, { type: 'bearer' }).expect(200);

    // A replay (not a parallel race: more than a second after the token was spent).
    await new Promise((r) => setTimeout(r, 1_100));
    const reuse = await refresh(first.refresh_token).expect(400);
    expect(reuse.body.error).toBe('invalid_grant');
    // The family is gone: the newest refresh token and its access token no longer work.
    expect((await refresh(second.refresh_token).expect(400)).body.error).toBe('invalid_grant');
    await request(h.queryApp).get('/api/auth/session/').auth(second.access_token, { type: 'bearer' }).expect(401);
  });

  it('refuses a request without PKCE, and a wrong verifier', async () => {
    const { challenge } = pkcePair();
    const { code_challenge: _c, code_challenge_method: _m, ...withoutPkce } = authorizeParams(challenge);
    const refused = await new BrowserAgent(h.commandApp).authorize(withoutPkce);
    expect(refused.status).toBe(303);
    const location = new URL(String(refused.headers['location']));
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    expect(location.searchParams.get('error')).toBe('invalid_request');

    const { code } = await new BrowserAgent(h.commandApp).codeFor(authorizeParams(challenge), email, password);
    const wrong = await redeem(code, pkcePair().verifier).expect(400);
    expect(wrong.body.error).toBe('invalid_grant');

    const plain = await new BrowserAgent(h.commandApp).authorize(authorizeParams(challenge, { code_challenge_method: 'plain' }));
    expect(new URL(String(plain.headers['location'])).searchParams.get('error')).toBe('invalid_request');
  });

  it('refuses a redirect URI that does not match exactly, without redirecting to it', async () => {
    const { challenge } = pkcePair();
    for (const uri of [`${redirectUri}/extra`, 'https://app.example.org/callback?x=1', 'https://evil.example.org/callback', 'https://APP.example.org/callback']) {
      const response = await new BrowserAgent(h.commandApp).authorize(authorizeParams(challenge, { redirect_uri: uri }));
      expect(response.status).toBe(400);
      expect(response.headers['location']).toBeUndefined();
      expect(response.text).toContain('redirect_uri');
    }
  });

  it('lets a public client sign in with PKCE alone', async () => {
    const { verifier, challenge } = pkcePair();
    const params = { ...authorizeParams(challenge), client_id: publicClient.client_id, redirect_uri: 'http://127.0.0.1:8765/callback' };
    const { code } = await new BrowserAgent(h.commandApp).codeFor(params, email, password);
    const tokens = await request(h.commandApp)
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:8765/callback', code_verifier: verifier, client_id: publicClient.client_id })
      .expect(200);
    await request(h.queryApp).get('/api/auth/session/').auth(tokens.body.access_token, { type: 'bearer' }).expect(200);
  });

  it('gives exactly one success when an authorization code or a refresh token is redeemed five times at once', async () => {
    const { verifier, challenge } = pkcePair();
    const { code } = await new BrowserAgent(h.commandApp).codeFor(authorizeParams(challenge), email, password);
    const codeResults = await Promise.all(Array.from({ length: 5 }, () => redeem(code, verifier)));
    expect(codeResults.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400]);
    for (const r of codeResults.filter((x) => x.status === 400)) expect(r.body.error).toBe('invalid_grant');

    const winner = codeResults.find((r) => r.status === 200)?.body as { refresh_token: string };
    const refreshResults = await Promise.all(
      Array.from({ length: 5 }, () =>
        request(h.commandApp).post('/oauth/token').set('Authorization', basic(client.client_id, client.client_secret)).type('form').send({ grant_type: 'refresh_token', refresh_token: winner.refresh_token }),
      ),
    );
    expect(refreshResults.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400]);
  });

  it('denying consent sends the user back with access_denied', async () => {
    const { challenge } = pkcePair();
    const browser = new BrowserAgent(h.commandApp);
    const started = await browser.authorize(authorizeParams(challenge, { scope: 'openid read' }));
    const signedIn = await browser.signIn(String(started.headers['location']), email, password);
    const consent = await browser.follow(String(signedIn.headers['location']));
    const page = await browser.agent.get(new URL(String(consent.location), 'http://cairn.test').pathname).expect(200);
    expect(page.text).toContain('Approve');
    expect(page.text).toContain('Deny');
    const denied = await browser.consent(String(consent.location), 'deny');
    const back = await browser.follow(String(denied.headers['location']));
    expect(new URL(String(back.location)).searchParams.get('error')).toBe('access_denied');
  });

  it('introspects and revokes tokens', async () => {
    const { verifier, challenge } = pkcePair();
    const { code } = await new BrowserAgent(h.commandApp).codeFor(authorizeParams(challenge), email, password);
    const tokens = (await redeem(code, verifier).expect(200)).body;
    const introspect = () => request(h.commandApp).post('/oauth/introspect').set('Authorization', basic(client.client_id, client.client_secret)).type('form').send({ token: tokens.access_token });
    expect((await introspect().expect(200)).body).toMatchObject({ active: true, scope: expect.stringContaining('read') });
    await request(h.commandApp).post('/oauth/revoke').set('Authorization', basic(client.client_id, client.client_secret)).type('form').send({ token: tokens.access_token }).expect(200);
    expect((await introspect().expect(200)).body).toEqual({ active: false });
    await request(h.queryApp).get('/api/auth/session/').auth(tokens.access_token, { type: 'bearer' }).expect(401);
  });
});
