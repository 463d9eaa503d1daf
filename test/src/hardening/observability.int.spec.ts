import { createOpsApp, serve } from '@cairn/cli';
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User } from '../support/api.ts';
import { openTestResources, startHarness, type Harness } from '../support/harness.ts';

let h: Harness;
let admin: User;
/** The operations port's app (CAIRN_OPS_PORT): the checks of /readyz and /metrics. */
let ops: Express;

beforeAll(async () => {
  h = await startHarness('all', { REDIS_URL: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379' });
  admin = await h.createUser({ admin: true });
  ops = createOpsApp(h.queryResources);
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
  it('answers /healthz and /readyz with each check on the operations port', async () => {
    expect((await request(ops).get('/healthz')).body).toEqual({ status: 'alive' });
    const ready = await request(ops).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { database: 'ok', redis: 'ok', projections: 'ok' } });
  });

  it('keeps the API port to what load balancers need: /healthz, and /readyz without its checks; no /metrics', async () => {
    expect((await request(h.queryApp).get('/healthz')).body).toEqual({ status: 'alive' });
    const ready = await request(h.queryApp).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
    const metrics = await request(h.queryApp).get('/metrics');
    expect(metrics.status).toBe(404);
    expect(metrics.body).toMatchObject({ status: 404, code: 'not_found' });
    expect(metrics.text).not.toContain('cairn_');
  });

  it('serves the operations port beside the API when CAIRN_OPS_PORT is set, and not at all otherwise', async () => {
    const resources = await openTestResources(h.databaseUrl, { CAIRN_OPS_PORT: '0' });
    const running = await serve(resources, 'query', 0);
    try {
      expect(running.opsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(running.opsUrl).not.toBe(running.url);
      const scraped = await fetch(`${running.opsUrl}/metrics`);
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain('cairn_db_pool_connections');
      expect(await (await fetch(`${running.opsUrl}/readyz`)).json()).toMatchObject({ status: 'ready', checks: { database: 'ok' } });
      expect((await fetch(`${running.url}/metrics`)).status).toBe(404);
      expect(await (await fetch(`${running.url}/readyz`)).json()).toEqual({ status: 'ready' });
    } finally {
      await running.stop();
      await resources.close();
    }
    const plain = await openTestResources(h.databaseUrl);
    const unconfigured = await serve(plain, 'query', 0);
    try {
      expect(unconfigured.opsUrl).toBeNull();
    } finally {
      await unconfigured.stop();
      await plain.close();
    }
  });

  it('serves Prometheus metrics that move with traffic', async () => {
    const before = (await request(ops).get('/metrics')).text;
    const route = '/api/funding-agencies/';
    const count = (text: string) => metric(text, 'cairn_http_requests_total', { method: 'POST', route, status: '201' });
    const appended = (text: string) => metric(text, 'cairn_events_appended_total', { type: 'FundingAgencyCreated' });
    for (let i = 0; i < 3; i += 1) await request(h.commandApp).post(route).set(bearer(admin)).send({ name: `Agency ${i}` }).expect(201);
    const res = await request(ops).get('/metrics');
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
    const text = (await request(ops).get('/metrics')).text;
    expect(text).not.toContain('00000000-0000-4000-8000-000000000000');
  });
});
