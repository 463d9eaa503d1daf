import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.ts';
import { publicUrl } from '../support/harness.ts';
import { freePort, runCairn, startCairn, type ServerProcess } from '../support/processes.ts';

async function api(base: string, method: string, route: string, token: string, body?: unknown) {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

describe('cairn serve', () => {
  const running: ServerProcess[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    for (const server of running) await server.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('runs split: command, query and projector processes on one database, reads its own writes', async () => {
    const databaseUrl = await createTestDatabase();
    const [commandPort, queryPort] = [await freePort(), await freePort()];
    const env = { DATABASE_URL: databaseUrl, CAIRN_PUBLIC_URL: publicUrl, CAIRN_LOG_LEVEL: 'warn' };
    const admin = await runCairn(['users', 'create', '--email', 'split@example.org', '--name', 'Split', '--system-admin'], env);
    expect(admin.code).toBe(0);
    const token = JSON.parse((await runCairn(['tokens', 'issue', '--user', 'split@example.org'], env)).stdout) as { access_token: string };

    const [command, query, projector] = await Promise.all([
      startCairn(['--role', 'command', '--port', String(commandPort)], env),
      startCairn(['--role', 'query', '--port', String(queryPort)], env),
      startCairn(['--role', 'projector'], env),
    ]);
    running.push(command, query, projector);
    const commandUrl = `http://127.0.0.1:${commandPort}`;
    const queryUrl = `http://127.0.0.1:${queryPort}`;

    for (let i = 0; i < 5; i += 1) {
      const created = await api(commandUrl, 'POST', '/api/funding-agencies/', token.access_token, { name: `Agency ${i}` });
      expect(created.status).toBe(201);
      const read = await api(queryUrl, 'GET', `/api/funding-agencies/${String(created.body?.['id'])}/`, token.access_token);
      expect(read.status).toBe(200);
      expect(read.body?.['name']).toBe(`Agency ${i}`);
    }
    // Each side serves only its own half: a write sent straight to the query side is misdirected.
    const wrongSide = await api(queryUrl, 'POST', '/api/funding-agencies/', token.access_token, { name: 'x' });
    expect(wrongSide.status).toBe(421);
    const notInInterface = await api(queryUrl, 'PUT', '/api/funding-agencies/', token.access_token, { name: 'x' });
    expect(notInInterface.status).toBe(405);
    expect(notInInterface.headers.get('allow')).toBe('GET, HEAD, POST');
    const schema = await fetch(`${queryUrl}/api/schema/`);
    expect(schema.status).toBe(200);
  }, 180_000);

  it('starts on an embedded PostgreSQL kept under the data directory when nothing is configured', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cairn-embedded-'));
    dirs.push(dataDir);
    const [port, pgPort] = [await freePort(), await freePort()];
    const env: Record<string, string> = { CAIRN_DATA_DIR: dataDir, PORT: String(port), CAIRN_EMBEDDED_PG_PORT: String(pgPort), CAIRN_LOG_LEVEL: 'warn', DATABASE_URL: '' };
    const first = await startCairn([], env, 150_000);
    running.push(first);
    expect(first.output()).toContain(`listening on http://127.0.0.1:${port}`);

    // The command line reaches the running server's embedded database.
    expect((await runCairn(['users', 'create', '--email', 'embedded@example.org', '--name', 'Embedded', '--system-admin'], env)).code).toBe(0);
    const token = JSON.parse((await runCairn(['tokens', 'issue', '--user', 'embedded@example.org'], env)).stdout) as { access_token: string };
    const base = `http://127.0.0.1:${port}`;
    const created = await api(base, 'POST', '/api/funding-agencies/', token.access_token, { name: 'Kept across restarts' });
    expect(created.status).toBe(201);
    await first.stop();

    const second = await startCairn([], env, 150_000);
    running.push(second);
    const read = await api(base, 'GET', `/api/funding-agencies/${String(created.body?.['id'])}/`, token.access_token);
    expect(read.status).toBe(200);
    expect(read.body?.['name']).toBe('Kept across restarts');
    await second.stop();
  }, 300_000);
});
