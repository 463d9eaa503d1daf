import { createApp, openResources, tokensIssue, usersCreate, type Resources } from '@cairn/cli';
import { createLogger, loadConfig } from '@cairn/platform';
import type { Express } from 'express';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase } from '../support/database.ts';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { publicUrl } from '../support/harness.ts';

// Short bounds, so that the black hole is answered in seconds (the defaults are 5 s and 30 s).
const connectTimeoutMs = 800;
const queryTimeoutMs = 1200;
/** The longest any answer may take in an outage: the query timeout, its client margin (1 s), and slack for a loaded machine. */
const answerBoundMs = queryTimeoutMs + 1000 + 2500;

const started = 'database unreachable: answering 503 until it is back';
const ended = 'database reachable again';

describe('a database outage', () => {
  let proxy: FaultProxy;
  let admin: pg.Client;
  let resources: Resources;
  let app: Express;
  let token: string;
  let database: string;
  let role: string;
  let ownerUrl: string;
  const lines: { level: string; message: string }[] = [];
  const auth = () => ({ Authorization: `Bearer ${token}` });
  /** How many waits for a connection of the main pool ran out so far, with this outcome (cairn_db_pool_waits_ran_out_total). */
  const waitsRanOut = async (outcome: 'busy' | 'no_progress') =>
    (await resources.metrics.poolWaitsRanOut.get()).values.find((v) => v.labels.pool === 'main' && v.labels.outcome === outcome)?.value ?? 0;

  beforeAll(async () => {
    const direct = new URL(await createTestDatabase());
    database = direct.pathname.slice(1);
    // A role of its own (not a superuser), so that its connection limit can be reached for real (53300).
    role = `cairn_outage_${randomBytes(4).toString('hex')}`;
    admin = new pg.Client({ connectionString: inject('serverUrl') });
    await admin.connect();
    await admin.query(`create role ${role} login`);
    ownerUrl = direct.toString();
    const owner = new pg.Client({ connectionString: ownerUrl });
    await owner.connect();
    await owner.query(`grant all on schema public to ${role}; grant all on all tables in schema public to ${role}; grant all on all sequences in schema public to ${role}`);
    await owner.end();
    direct.username = role;
    proxy = await startFaultProxy(direct.toString());
    const config = loadConfig({
      DATABASE_URL: proxy.url,
      CAIRN_PUBLIC_URL: publicUrl,
      CAIRN_LOG_LEVEL: 'silent',
      CAIRN_CONSISTENCY_TIMEOUT_MS: '2000',
      CAIRN_DB_CONNECT_TIMEOUT_MS: String(connectTimeoutMs),
      CAIRN_DB_QUERY_TIMEOUT_MS: String(queryTimeoutMs),
    });
    const quiet = createLogger('silent');
    const logger = {
      ...quiet,
      error: (message: string) => lines.push({ level: 'error', message }),
      warn: (message: string) => lines.push({ level: 'warn', message }),
    };
    resources = await openResources(config, { logger, poolSize: 4 });
    app = createApp(resources, 'all');
    const { id } = await usersCreate(resources, ['--email', `outage-${Date.now()}@example.org`, '--name', 'Outage', '--system-admin']);
    token = (await tokensIssue(resources, ['--user', id, '--scopes', 'read write'])).access_token;
  });
  afterAll(async () => {
    await proxy?.set('pass');
    await admin?.query(`alter database ${database} allow_connections true`).catch(() => undefined);
    await resources?.close();
    await proxy?.close();
    // The role is the cluster's, not the test database's: its grants go, then it does.
    const owner = new pg.Client({ connectionString: ownerUrl });
    await owner.connect();
    await owner.query(`drop owned by ${role}`);
    await owner.end();
    await admin?.query(`drop role if exists ${role}`);
    await admin?.end();
  });

  /** Requests of every kind while the database is out: the API's reads and writes, and the token endpoint. */
  async function duringOutage() {
    const begun = Date.now();
    const timed = async (send: () => request.Test) => {
      const at = Date.now();
      const res = await send();
      return { res, ms: Date.now() - at };
    };
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) =>
        timed(() => (i % 2 ? request(app).get('/api/funding-agencies/').set(auth()) : request(app).post('/api/funding-agencies/').set(auth()).send({ name: `During ${i}` }))),
      ),
      timed(() => request(app).post('/oauth/token').type('form').send({ grant_type: 'refresh_token', client_id: 'cairn-cli', refresh_token: 'not-a-token-we-issued' })),
    ]);
    return { answers, ms: Date.now() - begun };
  }

  async function recovered() {
    for (let attempt = 0; attempt < 80; attempt += 1) {
      const res = await request(app).get('/api/funding-agencies/').set(auth());
      if (res.status === 200 && lines.some((l) => l.message === ended)) return true;
      await new Promise((r) => setTimeout(r, 100));
    }
    return false;
  }

  const outages: [string, () => Promise<void>, () => Promise<void>][] = [
    ['refused (the port closed)', () => proxy.set('refuse'), () => proxy.set('pass')],
    ['cut (every connection reset)', () => proxy.set('cut'), () => proxy.set('pass')],
    ['a black hole (connections taken, nothing answered)', () => proxy.set('swallow'), () => proxy.set('pass')],
    [
      '55000 (the database not accepting connections)',
      async () => {
        await admin.query(`alter database ${database} allow_connections false`);
        await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [database]);
      },
      () => admin.query(`alter database ${database} allow_connections true`).then(() => undefined),
    ],
    [
      '53300 (the role out of connections)',
      async () => {
        await admin.query(`alter role ${role} connection limit 0`);
        await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where usename = $1', [role]);
      },
      () => admin.query(`alter role ${role} connection limit -1`).then(() => undefined),
    ],
  ];

  it.each(outages)('%s: every request answers 503 with Retry-After in bounded time, two log lines, and recovery without a restart', async (_name, begin, end) => {
    await request(app).post('/api/funding-agencies/').set(auth()).send({ name: 'Before' }).expect(201);
    lines.length = 0;
    await begin();
    // Twice: the second round meets an outage already known, and must not log it again.
    for (const round of [await duringOutage(), await duringOutage()]) {
      expect(round.ms).toBeLessThan(answerBoundMs);
      const api = round.answers.slice(0, -1);
      const token = round.answers.at(-1);
      for (const { res } of api) {
        // The authenticator may still know the token from its cache; either way the database is what fails.
        expect(res.status, JSON.stringify(res.body)).toBe(503);
        expect(res.headers['retry-after']).toMatch(/^\d+$/);
        expect(res.body).toEqual({ status: 503, code: 'database_unavailable', detail: expect.any(String) });
      }
      expect(token?.res.status, JSON.stringify(token?.res.body)).toBe(503);
      expect(token?.res.headers['retry-after']).toMatch(/^\d+$/);
      expect(token?.res.headers['content-type']).toMatch(/^application\/json/);
      expect(token?.res.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
    }
    expect(lines).toEqual([{ level: 'error', message: started }]);

    await end();
    expect(await recovered()).toBe(true);
    await request(app).post('/api/funding-agencies/').set(auth()).send({ name: 'After' }).expect(201);
    const refreshed = await request(app).post('/oauth/token').type('form').send({ grant_type: 'refresh_token', client_id: 'cairn-cli', refresh_token: 'not-a-token-we-issued' });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
    expect(lines.map((l) => l.message)).toEqual([started, ended]);
  });

  it('a black hole under steady reads, past the statement bound: every 503 is database_unavailable (connections handed back after read timeouts are no progress)', async () => {
    await request(app).get('/api/funding-agencies/').set(auth()).expect(200);
    lines.length = 0;
    const [busyBefore, hungBefore] = [await waitsRanOut('busy'), await waitsRanOut('no_progress')];
    await proxy.set('swallow');
    // A read every 100 ms for longer than a statement's bound, its client margin and a wait for a connection together.
    const sent: Promise<request.Response>[] = [];
    for (let i = 0; i < 45; i += 1) {
      sent.push(request(app).get('/api/funding-agencies/').set(auth()).then((res) => res));
      await new Promise((r) => setTimeout(r, 100));
    }
    const answers = await Promise.all(sent);
    for (const res of answers) {
      if (res.status === 200) continue;
      expect(res.body).toEqual({ status: 503, code: 'database_unavailable', detail: expect.any(String) });
    }
    expect(answers.filter((res) => res.status === 503).length).toBeGreaterThan(30);
    expect(lines).toEqual([{ level: 'error', message: started }]);
    // The operator sees the waits that ran out, none of them busy.
    expect(await waitsRanOut('no_progress')).toBeGreaterThan(hungBefore);
    expect(await waitsRanOut('busy')).toBe(busyBefore);
    await proxy.set('pass');
    expect(await recovered()).toBe(true);
  });

  it('a busy pool (every connection answering, slowly) answers 503 service_busy and logs no outage', async () => {
    // Every connection open first (the outages above closed them): opening one through the slow proxy takes about the wait's bound.
    await Promise.all(Array.from({ length: 4 }, () => resources.pool.query('select pg_sleep(0.1)')));
    expect(resources.pool.totalCount).toBe(4);
    lines.length = 0;
    const busyBefore = await waitsRanOut('busy');
    await proxy.set('slow');
    // 4 connections, each statement 80 ms or more: 120 reads sent over a second queue for
    // seconds, past the connect timeout (800 ms). Paced, not all at once: the proxy runs in this
    // process, and a burst of requests would hold its timers back, as a hung server would.
    const sent: Promise<request.Response>[] = [];
    for (let i = 0; i < 120; i += 1) {
      const refresh = () => request(app).post('/oauth/token').type('form').send({ grant_type: 'refresh_token', client_id: 'cairn-cli', refresh_token: 'not-a-token-we-issued' });
      sent.push((i % 10 === 9 ? refresh() : request(app).get('/api/funding-agencies/').set(auth())).then((res) => res));
      await new Promise((r) => setTimeout(r, 8));
    }
    const answers = await Promise.all(sent);
    await proxy.set('pass');
    expect(answers.filter((res) => res.status === 503).length).toBeGreaterThan(0);
    for (const [i, res] of answers.entries()) {
      if (i % 10 === 9) {
        // The token endpoint: its own refusal, or OAuth's word for "not now".
        if (res.status === 400) expect(res.body.error).toBe('invalid_grant');
        else expect([res.status, res.body.error]).toEqual([503, 'temporarily_unavailable']);
        continue;
      }
      if (res.status === 200) continue;
      expect(res.body).toEqual({ status: 503, code: 'service_busy', detail: expect.any(String) });
      expect(res.headers['retry-after']).toBe('1');
    }
    expect(lines).toEqual([]);
    // Every busy answer of the API was a wait counted as busy (the token endpoint's may add more).
    expect(await waitsRanOut('busy')).toBeGreaterThanOrEqual(busyBefore + answers.filter((res, i) => i % 10 !== 9 && res.status === 503).length);
    await request(app).post('/api/funding-agencies/').set(auth()).send({ name: 'After the rush' }).expect(201);
  });

  it('fails readiness while the database is unreachable and recovers when it is back, with no restart', async () => {
    expect((await request(app).get('/readyz')).status).toBe(200);
    await proxy.set('cut');
    const down = await request(app).get('/readyz');
    expect(down.status).toBe(503);
    expect(down.body.status).toBe('not ready');
    expect((await request(app).get('/healthz')).status).toBe(200);
    await proxy.set('pass');
    let ready = false;
    for (let attempt = 0; attempt < 50 && !ready; attempt += 1) {
      ready = (await request(app).get('/readyz')).status === 200;
      if (!ready) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ready).toBe(true);
  });
});
