import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';

let h: Harness;
let admin: User;

beforeAll(async () => {
  h = await startHarness('all', { REDIS_URL: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379' });
  admin = await h.createUser({ admin: true });
});
afterAll(async () => {
  await h.close();
});

const metric = (text: string, name: string, labels: Record<string, string>): number => {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && wanted.every((w) => l.includes(w)));
  return line ? Number(line.split(' ').at(-1)) : 0;
};

describe('health, readiness and metrics', () => {
  it('answers /healthz and /readyz with each check', async () => {
    expect((await request(h.queryApp).get('/healthz')).body).toEqual({ status: 'alive' });
    const ready = await request(h.queryApp).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { database: 'ok', redis: 'ok', projections: 'ok' } });
  });

  it('serves Prometheus metrics that move with traffic', async () => {
    const before = (await request(h.queryApp).get('/metrics')).text;
    const route = '/api/funding-agencies/';
    const count = (text: string) => metric(text, 'cairn_http_requests_total', { method: 'POST', route, status: '201' });
    const appended = (text: string) => metric(text, 'cairn_events_appended_total', { type: 'FundingAgencyCreated' });
    for (let i = 0; i < 3; i += 1) await request(h.commandApp).post(route).set(bearer(admin)).send({ name: `Agency ${i}` }).expect(201);
    const res = await request(h.queryApp).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    expect(count(res.text) - count(before)).toBe(3);
    expect(appended(res.text) - appended(before)).toBe(3);
    expect(res.text).toMatch(/cairn_http_request_duration_seconds_bucket\{[^}]*route="\/api\/funding-agencies\/"/);
    expect(res.text).toMatch(/cairn_db_pool_connections\{state="total"\} \d+/);
    expect(res.text).toContain('cairn_consistency_waits_total');
    expect(res.text).toContain('cairn_process_resident_memory_bytes');
  });

  it('labels routes by pattern, never by id', async () => {
    await request(h.queryApp).get('/api/assets/00000000-0000-4000-8000-000000000000/').set(bearer(admin)).expect(404);
    const text = (await request(h.queryApp).get('/metrics')).text;
    expect(text).not.toContain('00000000-0000-4000-8000-000000000000');
  });
});
