import { tokensIssue, usersCreate } from '@cairn/cli';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openTestResources } from '../support/harness.ts';
import { freePort, startCairn, type ServerProcess } from '../support/processes.ts';
import { createReplicatedDatabase, findPostgresBinaries, onServer, startReplicatedPostgres, type ReplicatedPostgres } from '../support/replicated-postgres.ts';
import { waitFor } from '../support/wait.ts';

// Reads from PostgreSQL hot standbys (docs/consistency.md, "Standbys"): a primary and two
// standbys of this test's own (initdb, pg_basebackup), one command process on the primary,
// two query processes reading from the standbys. Every write is read back at once, with
// its token, on a query process: a standby must have replayed it, or the primary answers.

const binaries = findPostgresBinaries();
const skipReason = process.env['CAIRN_SKIP_STANDBY_TESTS']
  ? 'CAIRN_SKIP_STANDBY_TESTS is set'
  : binaries === null
    ? "no PostgreSQL server binaries with pg_basebackup (/usr/lib/postgresql/<major>/bin, or CAIRN_PG_BIN): install the distribution's postgresql package, or run .ci/run"
    : null;
if (skipReason) console.warn(`standby test skipped: ${skipReason}`);

// 10,000 in the long run (CAIRN_STANDBY_TEST_WRITES=10000, docs/benchmarks.md); fewer by default, to keep CI short.
const writes = Number(process.env['CAIRN_STANDBY_TEST_WRITES'] ?? 2000);
const clients = 16;

type Answer = { readonly status: number; readonly headers: Headers; readonly body: Record<string, unknown> };

async function call(base: string, method: string, route: string, options: { token: string; consistency?: string | null; json?: unknown }): Promise<Answer> {
  const headers: Record<string, string> = { Authorization: `Bearer ${options.token}` };
  if (options.consistency) headers['X-Consistency-Token'] = options.consistency;
  if (options.json !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${base}${route}`, { method, headers, ...(options.json !== undefined ? { body: JSON.stringify(options.json) } : {}) });
  const text = await response.text();
  const parsed: unknown = text ? JSON.parse(text) : {};
  // A listing's page is an array: kept under `items`.
  return { status: response.status, headers: response.headers, body: (Array.isArray(parsed) ? { items: parsed } : parsed) as Record<string, unknown> };
}

describe.skipIf(skipReason !== null)(skipReason ? `query processes on PostgreSQL standbys (skipped: ${skipReason})` : 'query processes on PostgreSQL standbys', () => {
  let cluster: ReplicatedPostgres | null = null;
  const processes: ServerProcess[] = [];
  let command = '';
  let queries: string[] = [];
  let metricsUrl = '';
  let token = '';

  beforeAll(async () => {
    cluster = await startReplicatedPostgres(binaries ?? '', 2);
    const databaseUrl = await createReplicatedDatabase(cluster, 'cairn');
    const [commandPort, query1, query2, opsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    command = `http://127.0.0.1:${commandPort}`;
    queries = [`http://127.0.0.1:${query1}`, `http://127.0.0.1:${query2}`];
    metricsUrl = `http://127.0.0.1:${opsPort}/metrics`;
    const standbyUrls = cluster.standbys.map((s) => s.url('cairn')).join(',');
    // Idle keep-alive connections stay open longer than any wait here: a server closing one as
    // the client reuses it would be the test client's failure, not the service's.
    const env = { DATABASE_URL: databaseUrl, CAIRN_PUBLIC_URL: command, CAIRN_LOG_LEVEL: 'warn', CAIRN_KEEP_ALIVE_TIMEOUT_MS: '120000' };
    // The command process migrates the database first; the query processes start on a migrated one.
    processes.push(await startCairn(['--role', 'command', '--port', String(commandPort)], env));
    const started = await Promise.allSettled([
      startCairn(['--role', 'query', '--port', String(query1)], { ...env, DATABASE_READ_URL: standbyUrls, CAIRN_OPS_PORT: String(opsPort) }),
      startCairn(['--role', 'query', '--port', String(query2)], { ...env, DATABASE_READ_URL: standbyUrls }),
    ]);
    for (const s of started) if (s.status === 'fulfilled') processes.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    const resources = await openTestResources(databaseUrl, { CAIRN_PUBLIC_URL: command });
    try {
      const { id } = await usersCreate(resources, ['--email', 'standbys@example.org', '--name', 'Standbys', '--system-admin']);
      token = (await tokensIssue(resources, ['--user', id, '--ttl', '3600'])).access_token;
    } finally {
      await resources.close();
    }
    await cluster.caughtUp();
  }, 180_000);

  afterEach((context) => {
    if (context.task.result?.state !== 'fail') return;
    for (const p of processes) console.error(p.output());
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await cluster?.close();
  });

  const inRotation = async () => {
    const text = await (await fetch(metricsUrl)).text();
    return [...text.matchAll(/cairn_standby_in_rotation\{standby="([^"]+)"\} (\d)/g)].filter((m) => m[2] === '1').map((m) => m[1]);
  };

  /**
   * `clients` writers, each creating an asset and then renaming it again and again; after
   * every write it reads the asset back with the write's token from a query process (the
   * two in turn). Any answer but the write's own title is a failure: a stale read, or an
   * error. Counts the reads a standby answered (X-Standby-Lag-Ms), and calls `midway` once
   * half the writes are done, while the others keep going.
   */
  async function writeAndReadBack(total: number, midway?: () => Promise<void>) {
    const failures: string[] = [];
    let done = 0;
    let byStandby = 0;
    let midwayRun: Promise<void> | null = null;
    const client = async (n: number) => {
      const created = await call(command, 'POST', '/api/assets/', { token, json: { title: `client ${n} v0` } });
      if (created.status !== 201) return void failures.push(`create ${created.status} ${JSON.stringify(created.body)}`);
      const id = String(created.body['id']);
      for (let v = 1; done < total; v += 1) {
        const title = `client ${n} v${v}`;
        const written = await call(command, 'PATCH', `/api/assets/${id}/`, { token, json: { title } });
        done += 1;
        if (midway && !midwayRun && done >= total / 2) midwayRun = midway();
        if (written.status !== 200) {
          failures.push(`write ${written.status} ${JSON.stringify(written.body)}`);
          continue;
        }
        const read = await call(queries[(n + v) % 2] ?? '', 'GET', `/api/assets/${id}/`, { token, consistency: written.headers.get('x-consistency-token') });
        if (read.status !== 200 || read.body['title'] !== title) failures.push(`read ${read.status} ${String(read.body['title'] ?? JSON.stringify(read.body))}, wrote ${title}`);
        if (read.headers.get('x-standby-lag-ms') !== null) byStandby += 1;
      }
    };
    // A request that failed outright (a connection cut) is a failure too, not the end of the run.
    await Promise.all(Array.from({ length: clients }, (_, n) => client(n).catch((error: unknown) => void failures.push(`client ${n}: ${String(error)}`))));
    await midwayRun;
    return { failures, byStandby, reads: done };
  }

  it(`reads every write back on a standby with its token: ${writes} writes, no stale read`, async () => {
    const started = Date.now();
    const { failures, byStandby, reads } = await writeAndReadBack(writes);
    console.info(`standbys: ${reads} writes read back in ${Date.now() - started} ms, ${byStandby} of them answered by a standby`);
    expect(failures.slice(0, 5)).toEqual([]);
    // The primary answers only the reads no standby had replayed within CAIRN_STANDBY_WAIT_MS: on a quiet machine, none.
    expect(byStandby).toBeGreaterThan(reads * 0.9);
  }, 600_000);

  it('answers reads without a token from a standby, saying how far behind it is', async () => {
    const created = await call(command, 'POST', '/api/assets/', { token, json: { title: 'untokened' } });
    await cluster?.caughtUp();
    for (const query of queries) {
      const read = await call(query, 'GET', `/api/assets/${String(created.body['id'])}/`, { token });
      expect(read.status).toBe(200);
      expect(Number(read.headers.get('x-standby-lag-ms'))).toBeGreaterThanOrEqual(0);
      // The listing and the structured query too (the query runs on the standby's pool for costly reads).
      const listing = await call(query, 'GET', '/api/assets/?limit=5', { token });
      expect(listing.status, JSON.stringify(listing.body)).toBe(200);
      expect(listing.headers.get('x-standby-lag-ms')).not.toBeNull();
      const found = await call(query, 'POST', '/api/assets/query/', { token, json: { where: { field: 'title', op: 'eq', value: 'untokened' } } });
      expect(found.status, JSON.stringify(found.body)).toBe(200);
      expect((found.body['items'] as { id: string }[]).map((a) => a.id)).toEqual([created.body['id']]);
      expect(found.headers.get('x-standby-lag-ms')).not.toBeNull();
      // Sign-in state and what is not a read model stay the primary's: no standby header.
      const session = await call(query, 'GET', '/api/auth/session/', { token });
      expect(session.headers.get('x-standby-lag-ms')).toBeNull();
    }
  });

  it('documents the standby header on the reads a standby may answer, and only there', async () => {
    type Document = { paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>; components: { headers: Record<string, { description: string }> } };
    const document = (await (await fetch(`${queries[0] ?? ''}/api/schema/`)).json()) as Document;
    expect(document.components.headers['X-Standby-Lag-Ms']?.description).toMatch(/standby/);
    const documented = (path: string, method: string) => Object.keys(document.paths[path]?.[method]?.responses['200']?.headers ?? {});
    expect(documented('/api/assets/{id}/', 'get')).toContain('X-Standby-Lag-Ms');
    expect(documented('/api/assets/', 'get')).toContain('X-Standby-Lag-Ms');
    expect(documented('/api/assets/query/', 'post')).toContain('X-Standby-Lag-Ms');
    expect(documented('/api/auth/session/', 'get')).not.toContain('X-Standby-Lag-Ms');
    expect(documented('/api/assets/{id}/', 'patch')).not.toContain('X-Standby-Lag-Ms');
  });

  it('refuses a token whose WAL position is beyond the primary', async () => {
    const written = await call(command, 'POST', '/api/assets/', { token, json: { title: 'forged' } });
    const [major, minor] = String(written.headers.get('x-consistency-token')).split('.');
    const forged = `${major}.${minor}.${(2n ** 62n).toString(36)}`;
    const read = await call(queries[0] ?? '', 'GET', `/api/assets/${String(written.body['id'])}/`, { token, consistency: forged });
    expect(read.status).toBe(400);
    expect(read.body['code']).toBe('invalid_consistency_token');
    // A token of the old form (no WAL position) is still accepted: the primary's position read now stands in for it.
    const old = await call(queries[0] ?? '', 'GET', `/api/assets/${String(written.body['id'])}/`, { token, consistency: `${major}.${minor}` });
    expect(old.status).toBe(200);
    expect(old.body['title']).toBe('forged');
    expect(old.headers.get('x-standby-lag-ms')).not.toBeNull();
  });

  it('reads writes back on a standby with their token when a projector applies the read models (async)', async () => {
    if (!cluster) throw new Error('no cluster');
    const url = await createReplicatedDatabase(cluster, 'cairn_async');
    const [commandPort, queryPort] = [await freePort(), await freePort()];
    const base = `http://127.0.0.1:${commandPort}`;
    const query = `http://127.0.0.1:${queryPort}`;
    const env = { DATABASE_URL: url, CAIRN_PUBLIC_URL: base, CAIRN_PROJECTION_MODE: 'async', CAIRN_LOG_LEVEL: 'warn', CAIRN_KEEP_ALIVE_TIMEOUT_MS: '120000' };
    const own: ServerProcess[] = [];
    const started = async (p: Promise<ServerProcess>) => {
      const server = await p;
      own.push(server);
      processes.push(server);
    };
    await started(startCairn(['--role', 'command', '--port', String(commandPort)], env));
    await started(startCairn(['--role', 'projector'], env));
    await started(startCairn(['--role', 'query', '--port', String(queryPort)], { ...env, DATABASE_READ_URL: cluster.standbys.map((s) => s.url('cairn_async')).join(',') }));
    const resources = await openTestResources(url, { CAIRN_PUBLIC_URL: base, CAIRN_PROJECTION_MODE: 'async' });
    let asyncToken = '';
    try {
      const { id } = await usersCreate(resources, ['--email', 'async@example.org', '--name', 'Async', '--system-admin']);
      asyncToken = (await tokensIssue(resources, ['--user', id, '--ttl', '3600'])).access_token;
    } finally {
      await resources.close();
    }
    const failures: string[] = [];
    let byStandby = 0;
    await Promise.all(
      Array.from({ length: 4 }, async (_, n) => {
        const created = await call(base, 'POST', '/api/assets/', { token: asyncToken, json: { title: `async ${n} v0` } });
        for (let v = 1; v <= 15; v += 1) {
          const title = `async ${n} v${v}`;
          const written = await call(base, 'PATCH', `/api/assets/${String(created.body['id'])}/`, { token: asyncToken, json: { title } });
          const read = await call(query, 'GET', `/api/assets/${String(created.body['id'])}/`, { token: asyncToken, consistency: written.headers.get('x-consistency-token') });
          if (read.status !== 200 || read.body['title'] !== title) failures.push(`read ${read.status} ${String(read.body['title'])}, wrote ${title}`);
          if (read.headers.get('x-standby-lag-ms') !== null) byStandby += 1;
        }
      }),
    );
    // Stopped now: their commits would move the cluster's snapshots under the read cache test.
    await Promise.all(own.map((p) => p.stop()));
    expect(failures).toEqual([]);
    expect(byStandby).toBeGreaterThan(50);
  }, 180_000);

  it('keeps the read cache exact on a standby: a row changed on the primary shows once replayed', async () => {
    const created = await call(command, 'POST', '/api/assets/', { token, json: { title: 'cached on a standby' } });
    const id = String(created.body['id']);
    await cluster?.caughtUp();
    const hitsNow = async () => Number(/cairn_read_cache_lookups\{outcome="hit"\} (\d+)/.exec(await (await fetch(metricsUrl)).text())?.[1] ?? 0);
    const before = await hitsNow();
    // The same read again on one process: the repeats come from the cache (nothing else commits on this cluster;
    // bounded, should a background commit move a standby's snapshot once).
    for (let i = 0; i < 4 || ((await hitsNow()) === before && i < 20); i += 1) {
      const read = await call(queries[0] ?? '', 'GET', `/api/assets/${id}/`, { token });
      expect(read.body['title']).toBe('cached on a standby');
      expect(read.headers.get('x-standby-lag-ms')).not.toBeNull();
    }
    expect(await hitsNow()).toBeGreaterThan(before);
    // Changed by hand on the primary, behind the service's back: only replay tells the standby.
    if (!cluster) throw new Error('no cluster');
    await onServer(cluster.primary, (c) => c.query('update assets set title = $2 where id = $1', [id, 'changed on the primary']), 'cairn');
    await cluster.caughtUp();
    for (let i = 0; i < 3; i += 1) {
      const read = await call(queries[0] ?? '', 'GET', `/api/assets/${id}/`, { token });
      expect(read.body['title']).toBe('changed on the primary');
      expect(read.headers.get('x-standby-lag-ms')).not.toBeNull();
    }
  });

  it('loses no request when the standbys stop mid-run, and takes them back once they have caught up', async () => {
    if (!cluster) throw new Error('no cluster');
    const [first, second] = cluster.standbys;
    if (!first || !second) throw new Error('two standbys expected');
    expect((await inRotation()).sort()).toEqual(['standby-1', 'standby-2']);
    // The first stops halfway: its reads go to the other; the second stops soon after: they go to the primary.
    const { failures, reads } = await writeAndReadBack(Math.min(writes, 2000), async () => {
      await cluster?.stop(first);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await cluster?.stop(second);
    });
    expect(failures.slice(0, 5)).toEqual([]);
    expect(reads).toBeGreaterThan(0);
    expect(await inRotation()).toEqual([]);
    const created = await call(command, 'POST', '/api/assets/', { token, json: { title: 'while the standbys are down' } });
    const fromPrimary = await call(queries[1] ?? '', 'GET', `/api/assets/${String(created.body['id'])}/`, { token });
    expect(fromPrimary.status).toBe(200);
    expect(fromPrimary.headers.get('x-standby-lag-ms')).toBeNull();

    await cluster.start(first);
    await cluster.start(second);
    await waitFor(async () => (await inRotation()).length === 2, 30_000, 'both standbys back in rotation');
    const again = await call(queries[0] ?? '', 'GET', `/api/assets/${String(created.body['id'])}/`, { token, consistency: created.headers.get('x-consistency-token') });
    expect(again.body['title']).toBe('while the standbys are down');
    expect(again.headers.get('x-standby-lag-ms')).not.toBeNull();
  }, 300_000);
});
