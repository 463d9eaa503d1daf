import { purgeExpiredAuthState } from '@cairn/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.ts';

/** Issue 14: what anonymous visitors can make the service store is bounded in size, rate and life. */
describe('state that anonymous visitors can create', () => {
  let h: Harness;
  const rows = async (model?: string) =>
    Number((await h.resources.pool.query(`select count(*) from oidc_payloads ${model ? 'where model = $1' : ''}`, model ? [model] : [])).rows[0].count);

  beforeAll(async () => {
    h = await startHarness('all', { CAIRN_OAUTH_STARTS_PER_MINUTE: '8' });
  });
  afterAll(async () => h.close());

  it('refuses oversized OAuth parameters before storing anything', async () => {
    const before = await rows();
    const state = 'x'.repeat(13_000);
    const res = await request(h.commandApp).get('/oauth/authorize').query({ client_id: 'any', response_type: 'code', state });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(await rows()).toBe(before);
  });

  it('gives a device page session that nobody signed in to ten minutes, not weeks', async () => {
    await request(h.commandApp).get('/oauth/device').set('X-Forwarded-For', '203.0.113.9');
    const { rows: sessions } = await h.resources.pool.query<{ seconds: number }>(`select extract(epoch from expires_at - now())::int as seconds from oidc_payloads where model in ('Session', 'Interaction')`);
    for (const s of sessions) expect(s.seconds).toBeLessThanOrEqual(600);
  });

  it('rate-limits the anonymous starts per client address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i += 1) statuses.push((await request(h.commandApp).get('/oauth/device')).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    const limited = await request(h.commandApp).get('/oauth/device');
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
  });

  it('purges expired interactions and sessions at once, tokens a day later', async () => {
    await h.resources.pool.query(
      `insert into oidc_payloads (model, id, payload, expires_at) values
        ('Interaction', 'expired-interaction', '{}', now() - interval '1 minute'),
        ('Session', 'expired-session', '{}', now() - interval '1 minute'),
        ('AccessToken', 'recently-expired-token', '{}', now() - interval '1 minute')`,
    );
    await purgeExpiredAuthState(h.resources.pool);
    const { rows: left } = await h.resources.pool.query<{ id: string }>(`select id from oidc_payloads where id in ('expired-interaction', 'expired-session', 'recently-expired-token')`);
    expect(left.map((r) => r.id)).toEqual(['recently-expired-token']);
  });
});
