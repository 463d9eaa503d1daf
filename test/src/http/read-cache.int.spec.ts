import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReadCache } from '@cairn/query-api';
import { createOpsApp } from '@cairn/cli';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness, type Shape } from '../support/harness.ts';
import { createAsset } from '../assets/assets-fixtures.ts';

/**
 * The query service keeps the answers of asset and collection reads for as long as the
 * database snapshot stays the same (docs/read-cache.md): repeated reads are answered from
 * memory, and any commit, by this process or any other, ends every kept answer.
 */
describe.each<Shape>(['all', 'split'])('read cache (%s)', (shape) => {
  let h: Harness;
  let owner: User;
  let other: User;
  let pool: pg.Pool;
  const cache = () => h.queryApp.locals['readCache'] as ReadCache;
  const read = () => request(h.queryApp);

  beforeAll(async () => {
    h = await startHarness(shape);
    owner = await h.createUser();
    other = await h.createUser();
    pool = new pg.Pool({ connectionString: h.databaseUrl, max: 1 });
  });
  afterAll(async () => {
    await pool?.end();
    await h?.close();
  });

  it('answers a repeated read from memory, and each caller only what it may see', async () => {
    const asset = await createAsset(h, owner, { title: 'kept' });
    const first = await read().get('/api/assets/?limit=5').set(bearer(owner)).expect(200);
    const hits = cache().hits;
    const again = await read().get('/api/assets/?limit=5').set(bearer(owner)).expect(200);
    expect(again.text).toBe(first.text);
    expect(again.headers['x-has-more']).toBe(first.headers['x-has-more']);
    // A kept answer is sent as the same bytes with the same headers as a computed one.
    expect(again.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers['content-length']).toBe(String(Buffer.byteLength(first.text)));
    const head = await read().head('/api/assets/?limit=5').set(bearer(owner)).expect(200);
    expect(head.headers['content-length']).toBe(again.headers['content-length']);
    expect(head.headers['x-page-limit']).toBe('5');
    // Unless something committed in between (other tests' databases share the cluster's transaction ids).
    expect(cache().hits - hits).toBeLessThanOrEqual(1);
    expect(first.body.map((a: { id: string }) => a.id)).toContain(asset.id);
    // Another caller, same request: its own answer, not the owner's.
    const theirs = await read().get('/api/assets/?limit=5').set(bearer(other)).expect(200);
    expect(theirs.body.map((a: { id: string }) => a.id)).not.toContain(asset.id);
  });

  it('serves kept answers while nothing commits', async () => {
    await createAsset(h, owner, { title: 'steady' });
    let hits = 0;
    // Other test files commit on the same cluster, moving the snapshot: read until a repeat hits (bounded).
    for (let i = 0; i < 300 && (i < 20 || hits === 0); i += 1) {
      const before = cache().hits;
      await read().get(`/api/assets/${(await read().get('/api/assets/?limit=1').set(bearer(owner))).body[0].id}/`).set(bearer(owner)).expect(200);
      hits += cache().hits - before;
    }
    // On a busy cluster some reads miss; on a quiet one nearly all of the second reads hit.
    expect(hits).toBeGreaterThan(0);
    // Operators see the same counts (docs/observability.md).
    const metrics = (await request(createOpsApp(h.queryResources)).get('/metrics')).text;
    const hitLine = /cairn_read_cache_lookups\{outcome="hit"\} (\d+)/.exec(metrics);
    expect(Number(hitLine?.[1])).toBeGreaterThanOrEqual(hits);
    expect(metrics).toMatch(/cairn_read_cache_lookups\{outcome="miss"\} [1-9]\d*/);
  });

  it('never answers from before a commit made elsewhere: a change written straight to the read model shows at once', async () => {
    const asset = await createAsset(h, owner, { title: 'before' });
    for (let i = 0; i < 3; i += 1) expect((await read().get(`/api/assets/${asset.id}/`).set(bearer(owner)).expect(200)).body.title).toBe('before');
    // As another process's projector would: a commit this process knows nothing of.
    expect((await pool.query('update assets set title = $2 where id = $1', [asset.id, 'after'])).rowCount).toBe(1);
    expect((await read().get(`/api/assets/${asset.id}/`).set(bearer(owner)).expect(200)).body.title).toBe('after');
    const listed = await read().get(`/api/assets/?title=after`).set(bearer(owner)).expect(200);
    expect(listed.body.map((a: { id: string }) => a.id)).toEqual([asset.id]);
  });

  it('shows a write to the writer at once, through the listing it read before', async () => {
    const listing = async () => (await read().get('/api/assets/?tags=fresh').set(bearer(owner)).expect(200)).body.map((a: { id: string }) => a.id);
    expect(await listing()).toEqual([]);
    expect(await listing()).toEqual([]);
    const created = await createAsset(h, owner, { title: 'fresh one', tags: ['fresh'] });
    expect(await listing()).toEqual([created.id]);
  });

  it('shows each write at once while other reads keep the snapshot readings busy', async () => {
    // Snapshot readings are shared by the reads that arrive while one runs (snapshot-reader.ts).
    // The rule that makes this safe (never a reading that began before the read asked) is
    // proven in snapshot-reader.spec.ts; here, the whole path under concurrent readers.
    let stop = false;
    const busy = Array.from({ length: 8 }, async () => {
      while (!stop) await read().get('/api/assets/?limit=3').set(bearer(other)).expect(200);
    });
    try {
      const listing = async () => (await read().get('/api/assets/?tags=busy').set(bearer(owner)).expect(200)).body.map((a: { id: string }) => a.id);
      const seen: string[] = [];
      for (let i = 0; i < 12; i += 1) {
        await listing(); // kept under the current snapshot
        const created = await createAsset(h, owner, { title: `busy ${i}`, tags: ['busy'] });
        seen.unshift(created.id);
        expect(await listing()).toEqual(seen);
      }
    } finally {
      stop = true;
      await Promise.all(busy);
    }
  });
});
