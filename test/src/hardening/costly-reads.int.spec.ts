import pg from 'pg';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAsset, setPermissions } from '../assets/assets-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';

/**
 * Issue 23, finding 5: the reads whose cost the caller chooses (the structured query, `q`
 * searches, metadata filters) run under a statement timeout and at most N at a time per
 * caller (docs/asset-query.md, "Cost"). A held lock on `assets` stands in for a query
 * that takes long: every statement reading the table waits on it, for as long as the test
 * chooses.
 */
async function holdAssets(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('begin');
  await client.query('lock table assets in access exclusive mode');
  // Released at the latest after a few seconds, so that code without the bound fails the test instead of hanging it.
  const safety = setTimeout(() => void release(), 10_000);
  let released = false;
  async function release() {
    if (released) return;
    released = true;
    clearTimeout(safety);
    await client.query('rollback');
    await client.end();
  }
  /** Waits until `n` statements of the service wait on the lock. */
  async function waiters(n: number) {
    for (let i = 0; i < 120; i += 1) {
      // The activity view is read once per transaction, and this client is in one: forget that reading.
      await client.query('select pg_stat_clear_snapshot()');
      const { rows } = await client.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = 'cairn' and wait_event_type = 'Lock'`);
      if ((rows[0]?.n ?? 0) >= n) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`fewer than ${n} statements waited on the lock`);
  }
  return { release, waiters };
}

const started = (test: request.Test) => new Promise<request.Response>((resolve, reject) => test.then(resolve, reject));

describe('a costly read past the statement timeout', () => {
  let h: Harness;
  let owner: User;
  let held: Awaited<ReturnType<typeof holdAssets>> | undefined;

  beforeAll(async () => {
    h = await startHarness('all', { CAIRN_STATEMENT_TIMEOUT_MS: '300' });
    owner = await h.createUser();
    await createAsset(h, owner, { title: 'Timed', metadata: { k: 1 } });
  });
  afterEach(async () => held?.release());
  afterAll(async () => h.close());

  it('answers 503 query_timeout with Retry-After, then serves the same read once the database is free', async () => {
    const where = { field: 'metadata.k', op: 'eq', value: 1 };
    held = await holdAssets(h.databaseUrl);
    for (const res of [
      await request(h.queryApp).post('/api/assets/query/').set(bearer(owner)).send({ where }),
      await request(h.queryApp).get('/api/assets/').query({ q: 'tim' }).set(bearer(owner)),
      await request(h.queryApp).get('/api/assets/').query({ metadata: 'k:1' }).set(bearer(owner)),
    ]) {
      expect(res.status, JSON.stringify(res.body)).toBe(503);
      expect(res.body).toMatchObject({ status: 503, code: 'query_timeout' });
      expect(res.body.detail).toMatch(/300 ms/);
      expect(res.headers['retry-after']).toBe('1');
    }
    await held.release();
    const res = await request(h.queryApp).post('/api/assets/query/').set(bearer(owner)).send({ where }).expect(200);
    expect((res.body as { title: string }[]).map((a) => a.title)).toEqual(['Timed']);
  });
});

describe('costly reads of one caller at a time', () => {
  let h: Harness;
  let reader: User;
  let other: User;
  let held: Awaited<ReturnType<typeof holdAssets>> | undefined;

  beforeAll(async () => {
    h = await startHarness('all', { CAIRN_COSTLY_READS_PER_CALLER: '2', CAIRN_STATEMENT_TIMEOUT_MS: '20000' });
    const owner = await h.createUser();
    reader = await h.createUser({ scopes: 'read' });
    other = await h.createUser({ scopes: 'read' });
    const asset = await createAsset(h, owner, { title: 'Public', metadata: { k: 1 } });
    await setPermissions(h, owner, asset.id, [{ subject_type: 'public', flags: 1 }]);
  });
  afterEach(async () => held?.release());
  afterAll(async () => h.close());

  it('refuses the caller’s third with 429 and Retry-After, serves another caller and the plain listing, and frees the slots', async () => {
    const query = (user: User, k: number) => request(h.queryApp).post('/api/assets/query/').set(bearer(user)).send({ where: { field: 'metadata.k', op: 'in', value: [1, k] } });
    held = await holdAssets(h.databaseUrl);
    const running = [started(query(reader, 2)), started(query(reader, 3))];
    await held.waiters(2);

    for (const refused of [await query(reader, 4), await request(h.queryApp).get('/api/assets/').query({ q: 'pub' }).set(bearer(reader)), await request(h.queryApp).get('/api/assets/').query({ metadata: 'k' }).set(bearer(reader))]) {
      expect(refused.status, JSON.stringify(refused.body)).toBe(429);
      expect(refused.body).toMatchObject({ status: 429, code: 'rate_limited' });
      expect(refused.headers['retry-after']).toBe('1');
    }
    // Not refused: another caller's query, and the same caller's plain listing (no gate on it).
    const served = [started(query(other, 5)), started(request(h.queryApp).get('/api/assets/').set(bearer(reader)))];
    await held.release();
    for (const res of await Promise.all([...running, ...served])) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect((res.body as { title: string }[]).map((a) => a.title)).toEqual(['Public']);
    }
    await query(reader, 6).expect(200);
  });
});

describe('costly reads when every connection for them is busy', () => {
  let h: Harness;
  let reader: User;
  let held: Awaited<ReturnType<typeof holdAssets>> | undefined;

  beforeAll(async () => {
    // The costly reads' pool is a quarter of the pool (at least 4); a short wait for a free connection.
    h = await startHarness('all', { CAIRN_COSTLY_READS_PER_CALLER: '50', CAIRN_STATEMENT_TIMEOUT_MS: '20000', CAIRN_DB_CONNECT_TIMEOUT_MS: '400' });
    const owner = await h.createUser();
    reader = await h.createUser({ scopes: 'read' });
    const asset = await createAsset(h, owner, { title: 'Public', metadata: { k: 1 } });
    await setPermissions(h, owner, asset.id, [{ subject_type: 'public', flags: 1 }]);
  });
  afterEach(async () => held?.release());
  afterAll(async () => h.close());

  it('answers 503 service_busy with Retry-After (not database_unavailable), and serves again once they are free', async () => {
    const query = (k: number) => request(h.queryApp).post('/api/assets/query/').set(bearer(reader)).send({ where: { field: 'metadata.k', op: 'in', value: [1, k] } });
    held = await holdAssets(h.databaseUrl);
    // More than the costly pool has connections: the rest wait 400 ms for one, then are answered.
    const running = Array.from({ length: 12 }, (_, k) => started(query(k + 2)));
    await held.waiters(2);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await held.release();
    const answers = await Promise.all(running);
    const busy = answers.filter((res) => res.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    for (const res of busy) {
      expect(res.body).toMatchObject({ status: 503, code: 'service_busy' });
      expect(res.headers['retry-after']).toBe('1');
    }
    for (const res of answers.filter((r) => r.status !== 503)) expect(res.status, JSON.stringify(res.body)).toBe(200);
    await query(99).expect(200);
  });
});
