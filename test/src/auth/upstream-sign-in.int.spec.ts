import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clientsCreate, createRepository, usersCreate } from '@cairn/cli';
import express from 'express';
import Provider from 'oidc-provider';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.ts';
import { freePort } from '../support/processes.ts';
import { basic, BrowserAgent, pathOf, pkcePair } from './oauth-driver.ts';

type Account = { email: string; verified: boolean; name: string };

/** A real, separate OpenID Connect provider standing in for an institution's: it signs in whoever `account` says. */
async function startUpstream(port: number) {
  const state: { account: Account } = { account: { email: 'new.person@example.edu', verified: true, name: 'New Person' } };
  const provider = new Provider(`http://127.0.0.1:${port}`, {
    clients: [{ client_id: 'cairn', client_secret: 'upstream-secret', redirect_uris: ['http://cairn.test/oauth/upstream/callback'], grant_types: ['authorization_code'], response_types: ['code'] }],
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub, email: state.account.email, email_verified: state.account.verified, name: state.account.name }) }),
    claims: { email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['upstream-test-key'] },
    jwks: { keys: [{ ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), kid: 'upstream', use: 'sig', alg: 'RS256' }] },
  });
  const app = express();
  app.get('/interaction/:uid', async (req, res, next) => {
    try {
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name === 'login') {
        await provider.interactionFinished(req, res, { login: { accountId: state.account.email } }, { mergeWithLastSubmission: false });
        return;
      }
      const grant = new provider.Grant({ accountId: details.session?.accountId ?? '', clientId: String(details.params['client_id']) });
      grant.addOIDCScope('openid email profile');
      await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    } catch (error) {
      next(error);
    }
  });
  app.use(provider.callback());
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { state, app, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('sign-in delegated to an upstream OpenID Connect provider', () => {
  let h: Harness;
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let client: { client_id: string; client_secret: string };
  let localRepositoryId: string;

  beforeAll(async () => {
    const port = await freePort();
    upstream = await startUpstream(port);
    h = await startHarness('all', {
      CAIRN_UPSTREAM_OIDC_ISSUER: `http://127.0.0.1:${port}`,
      CAIRN_UPSTREAM_OIDC_CLIENT_ID: 'cairn',
      CAIRN_UPSTREAM_OIDC_CLIENT_SECRET: 'upstream-secret',
      CAIRN_UPSTREAM_OIDC_NAME: 'Example University',
      // A user made at sign-in is a new user like any other: granted the default allocation.
      CAIRN_DEFAULT_ALLOCATION_BYTES: '5000',
    });
    localRepositoryId = (await createRepository(h.resources, 'local', { kind: 'fs', path: await mkdtemp(path.join(tmpdir(), 'cairn-upstream-local-')) })).id;
    client = (await clientsCreate(h.resources, ['--name', 'Web', '--redirect-uri', 'https://app.example.org/cb'])) as { client_id: string; client_secret: string };
  });
  afterAll(async () => {
    await h.close();
    await upstream.close();
  });

  /** Walks the whole flow: our sign-in page, out to the provider, back, consent, code, token. */
  async function signInUpstream(): Promise<{ status: number; token?: string; text?: string; cookie?: string }> {
    const { verifier, challenge } = pkcePair();
    const browser = new BrowserAgent(h.commandApp);
    const started = await browser.authorize({ client_id: client.client_id, response_type: 'code', redirect_uri: 'https://app.example.org/cb', scope: 'openid read write', code_challenge: challenge, code_challenge_method: 'S256' });
    const page = await browser.agent.get(pathOf(String(started.headers['location']))).expect(200);
    const link = /<a href="([^"]+\/upstream)">Sign in with Example University<\/a>/.exec(page.text)?.[1];
    expect(link).toBeDefined();
    const out = await browser.agent.get(String(link)).expect(303);

    // At the provider (its own cookies, its own host).
    const away = request.agent(upstream.app);
    let location = String(out.headers['location']);
    for (let hop = 0; hop < 10 && !location.startsWith('http://cairn.test/'); hop += 1) {
      const response = await away.get(pathOf(location));
      location = String(response.headers['location']);
    }
    expect(location).toMatch(/^http:\/\/cairn\.test\/oauth\/upstream\/callback\?/);

    const back = await browser.agent.get(pathOf(location));
    if (back.status !== 303) return { status: back.status, text: back.text };
    const completed = await browser.agent.get(pathOf(String(back.headers['location']))).expect(303);
    const cookie = ([] as string[]).concat(completed.headers['set-cookie'] ?? []).find((c) => c.startsWith('cairn_session='));
    let step = await browser.follow(String(completed.headers['location']));
    if (step.location?.includes('/oauth/interaction/')) step = await browser.follow(String((await browser.consent(step.location, 'approve')).headers['location']));
    const code = new URL(String(step.location)).searchParams.get('code') ?? '';
    const tokens = await request(h.commandApp)
      .post('/oauth/token')
      .set('Authorization', basic(client.client_id, client.client_secret))
      .type('form')
      .send({ grant_type: 'authorization_code', code, redirect_uri: 'https://app.example.org/cb', code_verifier: verifier })
      .expect(200);
    return { status: 200, token: tokens.body.access_token, ...(cookie ? { cookie } : {}) };
  }

  it('creates a user for a verified address it has not seen, and signs them in', async () => {
    upstream.state.account = { email: 'New.Person@Example.edu', verified: true, name: 'New Person' };
    const result = await signInUpstream();
    expect(result.status).toBe(200);
    expect(result.cookie).toMatch(/^cairn_session=/);
    const me = await request(h.queryApp).get('/api/auth/session/').auth(String(result.token), { type: 'bearer' }).expect(200);
    expect(me.body.email).toBe('new.person@example.edu');
    const { rows } = await h.resources.pool.query("select name, is_system_admin from users where email = 'new.person@example.edu'");
    expect(rows).toEqual([{ name: 'New Person', is_system_admin: false }]);
    const { rows: allocations } = await h.resources.pool.query('select repository_id, limit_bytes::int as limit_bytes from allocations where owner_type = $1 and owner_id = $2', ['user', me.body.user_id]);
    expect(allocations).toEqual([{ repository_id: localRepositoryId, limit_bytes: 5000 }]);
  });

  it('matches an existing user by verified e-mail', async () => {
    const { id } = await usersCreate(h.resources, ['--email', 'known@example.edu', '--name', 'Known']);
    upstream.state.account = { email: 'known@example.edu', verified: true, name: 'Someone Else' };
    const result = await signInUpstream();
    const me = await request(h.queryApp).get('/api/auth/session/').auth(String(result.token), { type: 'bearer' }).expect(200);
    expect(me.body.user_id).toBe(id);
  });

  it('refuses an address the provider has not verified', async () => {
    upstream.state.account = { email: 'unverified@example.edu', verified: false, name: 'Unverified' };
    const result = await signInUpstream();
    expect(result.status).toBe(403);
    expect(result.text).toContain('verified e-mail');
    const { rows } = await h.resources.pool.query("select 1 from users where email = 'unverified@example.edu'");
    expect(rows).toHaveLength(0);
  });
});
