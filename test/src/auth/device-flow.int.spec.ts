import { usersCreate } from '@cairn/cli';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.ts';
import { BrowserAgent, pathOf } from './oauth-driver.ts';

const password = 'device flow password';
const email = 'dev@example.org';
const deviceGrant = 'urn:ietf:params:oauth:grant-type:device_code';

type DeviceStart = { device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string; expires_in: number; interval: number };

describe('the device authorization grant (RFC 8628)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('all');
    await usersCreate(h.resources, ['--email', email, '--name', 'Dev', '--password', password]);
  });
  afterAll(async () => h.close());

  const start = async (): Promise<DeviceStart> =>
    (await request(h.commandApp).post('/oauth/device/auth').type('form').send({ client_id: 'cairn-cli', scope: 'openid offline_access read write' }).expect(200)).body as DeviceStart;
  const poll = (deviceCode: string) => request(h.commandApp).post('/oauth/token').type('form').send({ grant_type: deviceGrant, device_code: deviceCode, client_id: 'cairn-cli' });
  const xsrfOf = (html: string) => /name="xsrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

  /** A person on another device: enters the code, confirms, signs in, approves. */
  async function approve(userCode: string): Promise<string> {
    const browser = new BrowserAgent(h.commandApp);
    const entry = await browser.agent.get('/oauth/device').expect(200);
    expect(entry.text).toContain('<label for="user_code">Code</label>');
    expect(entry.text).toContain('Continue');
    const confirm = await browser.agent.post('/oauth/device').type('form').send({ xsrf: xsrfOf(entry.text), user_code: userCode.toLowerCase().replace('-', ' ') }).expect(200);
    expect(confirm.text).toContain(userCode);
    const confirmed = await browser.agent.post('/oauth/device').type('form').send({ xsrf: xsrfOf(confirm.text), user_code: userCode, confirm: 'yes' });
    expect([302, 303]).toContain(confirmed.status);
    const signedIn = await browser.signIn(String(confirmed.headers['location']), email, password);
    const consent = await browser.follow(String(signedIn.headers['location']));
    const approved = await browser.consent(String(consent.location), 'approve');
    let response = approved;
    for (let hop = 0; hop < 6 && response.status >= 300 && response.status < 400; hop += 1) {
      response = await browser.agent.get(pathOf(String(response.headers['location'])));
    }
    return response.text;
  }

  it('gives a short unambiguous code, a short address and the polling interval', async () => {
    const device = await start();
    expect(device.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(device.verification_uri).toBe('http://cairn.test/oauth/device');
    expect(device.verification_uri_complete).toContain(device.user_code);
    expect(device.interval).toBe(5);
    expect(device.expires_in).toBeGreaterThan(0);
  });

  it('answers authorization_pending, then slow_down to a client polling too fast', async () => {
    const device = await start();
    const first = await poll(device.device_code).expect(400);
    expect(first.body.error).toBe('authorization_pending');
    const second = await poll(device.device_code).expect(400);
    expect(second.body.error).toBe('slow_down');
  });

  it('issues tokens once the user approves on another device, and they work on the API', async () => {
    const device = await start();
    const page = await approve(device.user_code);
    expect(page).toContain('Device connected');
    const tokens = await poll(device.device_code).expect(200);
    expect(tokens.body.refresh_token).toEqual(expect.any(String));
    const me = await request(h.queryApp).get('/api/auth/session/').auth(tokens.body.access_token, { type: 'bearer' }).expect(200);
    expect(me.body.email).toBe(email);
  });

  it('gives exactly one success when an approved device code is redeemed five times at once', async () => {
    const device = await start();
    await approve(device.user_code);
    const results = await Promise.all(Array.from({ length: 5 }, () => poll(device.device_code)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400]);
    for (const r of results.filter((x) => x.status === 400)) expect(r.body.error).toBe('invalid_grant');
  });

  it('rate limits user code entry per address', async () => {
    const browser = new BrowserAgent(h.commandApp);
    const orphan = await browser.agent.post('/oauth/device').type('form').send({ xsrf: 'x', user_code: 'BCDF-GHJK' });
    expect(orphan.status).toBe(400);
    expect(orphan.text).toContain('Open the code page first');
    await browser.agent.get('/oauth/device').expect(200);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i += 1) {
      const response = await browser.agent.post('/oauth/device').type('form').send({ xsrf: 'x', user_code: 'BCDF-GHJK' });
      statuses.push(response.status);
    }
    // Ten entries a minute per address (earlier tests of this file used some of them).
    expect(statuses).toContain(429);
    expect(statuses.slice(statuses.indexOf(429)).every((s) => s === 429)).toBe(true);
  });
});
