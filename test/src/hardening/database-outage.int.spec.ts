import { createApp, tokensIssue, usersCreate, type Resources } from '@cairn/cli';
import { createLogger, loadConfig } from '@cairn/platform';
import { openResources } from '@cairn/cli';
import type { Express } from 'express';
import net from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.ts';
import { publicUrl } from '../support/harness.ts';

/** A TCP relay in front of PostgreSQL that can refuse and cut connections, as an outage would. */
function relay(target: URL) {
  const sockets = new Set<net.Socket>();
  let open = true;
  const server = net.createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  return {
    listen: () => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port))),
    down() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    up() {
      open = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('a database outage', () => {
  let proxy: ReturnType<typeof relay>;
  let resources: Resources;
  let app: Express;
  let token: string;
  const lines: { level: string; message: string }[] = [];

  beforeAll(async () => {
    const direct = new URL(await createTestDatabase());
    proxy = relay(direct);
    const port = await proxy.listen();
    const proxied = new URL(direct);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(port);
    const config = loadConfig({ DATABASE_URL: proxied.toString(), CAIRN_PUBLIC_URL: publicUrl, CAIRN_LOG_LEVEL: 'silent', CAIRN_CONSISTENCY_TIMEOUT_MS: '2000' });
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
    proxy.up();
    await resources?.close();
    await proxy?.close();
  });

  it('answers 503 with Retry-After while the database is unreachable, logs the outage twice, and recovers without a restart', async () => {
    const auth = { Authorization: `Bearer ${token}` };
    await request(app).post('/api/funding-agencies/').set(auth).send({ name: 'Before' }).expect(201);
    lines.length = 0;

    proxy.down();
    const during = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? request(app).get('/api/funding-agencies/').set(auth) : request(app).post('/api/funding-agencies/').set(auth).send({ name: `During ${i}` }))),
    );
    for (const res of during) {
      // The authenticator may still know the token from its cache; either way the database is what fails.
      expect(res.status, JSON.stringify(res.body)).toBe(503);
      expect(res.headers['retry-after']).toBeDefined();
      expect(res.body).toMatchObject({ status: 503, code: 'database_unavailable' });
    }
    expect(lines.filter((l) => l.level === 'error')).toHaveLength(1);

    proxy.up();
    let recovered = false;
    for (let attempt = 0; attempt < 50 && !recovered; attempt += 1) {
      const res = await request(app).get('/api/funding-agencies/').set(auth);
      recovered = res.status === 200;
      if (!recovered) await new Promise((r) => setTimeout(r, 100));
    }
    expect(recovered).toBe(true);
    await request(app).post('/api/funding-agencies/').set(auth).send({ name: 'After' }).expect(201);
    expect(lines.map((l) => l.message)).toEqual(['database unreachable: answering 503 until it is back', 'database reachable again']);
  });

  it('fails readiness while the database is unreachable and recovers when it is back, with no restart', async () => {
    expect((await request(app).get('/readyz')).status).toBe(200);
    proxy.down();
    const down = await request(app).get('/readyz');
    expect(down.status).toBe(503);
    expect(down.body.status).toBe('not ready');
    expect(down.body.checks.database).not.toBe('ok');
    expect((await request(app).get('/healthz')).status).toBe(200);
    proxy.up();
    let ready = false;
    for (let attempt = 0; attempt < 50 && !ready; attempt += 1) {
      ready = (await request(app).get('/readyz')).status === 200;
      if (!ready) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ready).toBe(true);
  });
});
