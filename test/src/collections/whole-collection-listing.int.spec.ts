import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { everyCollection } from '@cairn/query-api';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createCollection, everyPage, inBatches, setCollectionPermissions, type Collection } from './collections-fixtures.ts';

const READ = 1;
const mine = 250;

/**
 * DECISIONS.md 8: `GET /api/collections/` without `limit` or `cursor` answers every
 * collection the caller sees as one array (it answered a page of 100); with `limit` or
 * `cursor` it pages as before (docs/collections.md, "The whole listing").
 */
describe('the whole collection listing', () => {
  let h: Harness;
  let me: User;
  let other: User;
  let admin: User;
  let shared: Collection;
  let hidden: Collection[];
  let own: Collection[];
  const read = () => request(h.queryApp);
  const ids = (list: readonly Collection[]) => list.map((c) => c.id);
  const newestFirst = (x: Collection, y: Collection) => (x.created_at < y.created_at ? 1 : x.created_at > y.created_at ? -1 : x.id < y.id ? -1 : 1);

  beforeAll(async () => {
    h = await startHarness('all');
    [me, other, admin] = [await h.createUser(), await h.createUser(), await h.createUser({ admin: true })];
    own = await inBatches(
      Array.from({ length: mine }, (_, i) => i),
      8,
      (i) => createCollection(h, me, { title: i % 50 === 0 ? `Moraine ${i}` : `Mine ${i}` }),
    );
    hidden = await inBatches([0, 1, 2, 3, 4], 5, (i) => createCollection(h, other, { title: `Moraine, private ${i}` }));
    shared = await createCollection(h, other, { title: 'Moraine, shared' });
    await setCollectionPermissions(h, other, shared.id, [{ subject_type: 'user', subject_id: me.id, flags: READ }]);
  }, 120_000);
  afterAll(async () => h.close());

  it('answers every collection the caller sees, newest first, without paging headers', async () => {
    const res = await read().get('/api/collections/').set(bearer(me)).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json; charset=utf-8/);
    for (const header of ['x-page-limit', 'x-has-more', 'x-next-cursor']) expect(res.headers[header], header).toBeUndefined();
    // Longer than one page of the stream (docs/collections.md): sent as it is read.
    expect(res.headers['transfer-encoding']).toBe('chunked');
    const all = res.body as Collection[];
    // Their own 250, their root collection, and the one shared with them; never the hidden ones.
    expect(all).toHaveLength(mine + 2);
    expect(new Set(ids(all))).toEqual(new Set([...ids(own), own[0]?.parent_id, shared.id]));
    for (const c of hidden) expect(ids(all)).not.toContain(c.id);
    expect(ids(all)).toEqual(ids([...all].sort(newestFirst)));
    // The same collections, field for field, as the pages answer them.
    expect(all).toEqual(await everyPage<Collection>(h, me, '/api/collections/', 100));
  });

  it('keeps the filters', async () => {
    const list = async (query: string) => ids((await read().get(`/api/collections/?${query}`).set(bearer(me)).expect(200)).body as Collection[]);
    expect(await list(`owner_id=${other.id}`)).toEqual([shared.id]);
    expect(await list('q=moraine')).toEqual(ids([shared, ...own.filter((c) => c.title.startsWith('Moraine'))].sort(newestFirst)));
    expect(await list('access_scope=direct')).toHaveLength(mine + 2);
    expect(await list('owner_type=project')).toEqual([]);
    const root = own[0]?.parent_id ?? '';
    expect(await list(`parent_id=${root}`)).toHaveLength(mine);
    // A hidden parent lists nothing, like a random id.
    const hiddenRoot = hidden[0]?.parent_id ?? '';
    expect(await list(`parent_id=${hiddenRoot}`)).toEqual([]);
    expect(await list(`parent_id=${randomUUID()}`)).toEqual([]);
    // A system administrator sees everyone's.
    const asAdmin = ids((await read().get(`/api/collections/?owner_id=${other.id}`).set(bearer(admin)).expect(200)).body as Collection[]);
    expect(new Set(asAdmin)).toEqual(new Set([...ids(hidden), shared.id, hiddenRoot]));
  });

  it('pages with `limit` or `cursor`, with the asset listing’s headers', async () => {
    const first = await read().get('/api/collections/?limit=100').set(bearer(me)).expect(200);
    expect(first.body).toHaveLength(100);
    expect(first.headers['x-page-limit']).toBe('100');
    expect(first.headers['x-has-more']).toBe('true');
    const cursor = first.headers['x-next-cursor'] as string;
    // A cursor alone pages by the default page size.
    const second = await read().get(`/api/collections/?cursor=${encodeURIComponent(cursor)}`).set(bearer(me)).expect(200);
    expect(second.headers['x-page-limit']).toBe('100');
    expect(second.body).toHaveLength(100);
    const all = (await read().get('/api/collections/').set(bearer(me)).expect(200)).body as Collection[];
    expect(ids([...(first.body as Collection[]), ...(second.body as Collection[])])).toEqual(ids(all).slice(0, 200));
    expect(ids(await everyPage<Collection>(h, me, '/api/collections/', 7))).toEqual(ids(all));
    expect((await read().get('/api/collections/?limit=x').set(bearer(me)).expect(400)).body.errors).toHaveProperty('limit');
  });

  it('shows a new collection at once: the read cache keeps no stale whole listing', async () => {
    const before = (await read().get('/api/collections/').set(bearer(me)).expect(200)).body as Collection[];
    const small = (await read().get(`/api/collections/?owner_id=${other.id}`).set(bearer(me)).expect(200)).body as Collection[];
    const added = await createCollection(h, me, { title: 'Added later' });
    await setCollectionPermissions(h, other, hidden[0]?.id ?? '', [{ subject_type: 'user', subject_id: me.id, flags: READ }]);
    const after = (await read().get('/api/collections/').set(bearer(me)).expect(200)).body as Collection[];
    expect(after).toHaveLength(before.length + 2);
    expect(ids(after)[0]).toBe(added.id);
    expect(ids(after)).toContain(hidden[0]?.id);
    expect((await read().get(`/api/collections/?owner_id=${other.id}`).set(bearer(me)).expect(200)).body).toHaveLength(small.length + 1);
  });

  describe('the stream', () => {
    /** The database, counting the statements run through it. */
    const counted = () => {
      const seen = { statements: 0 };
      const db = h.resources.db.withPlugin({
        transformQuery: (args) => {
          seen.statements += 1;
          return args.node;
        },
        transformResult: async (args) => Promise.resolve(args.result),
      });
      return { db, seen };
    };
    const viewer = () => ({ userId: me.id, isSystemAdmin: false });
    const streamOf = async (db: Parameters<typeof everyCollection>[0], pageSize: number) => {
      const answer = await everyCollection(db, viewer(), {}, pageSize);
      if (!answer.stream) throw new Error('the answer did not stream');
      return answer.stream.body;
    };
    const text = async (body: Readable) => {
      let all = '';
      for await (const chunk of body) all += String(chunk);
      return all;
    };

    it('reads one page at a time and is one JSON array', async () => {
      const { db, seen } = counted();
      const body = await streamOf(db, 40);
      const answer = JSON.parse(await text(body)) as Collection[];
      expect(answer).toHaveLength((await read().get('/api/collections/').set(bearer(me)).expect(200)).body.length);
      // The principals once, then ceil(rows / 40) pages (the last one may come back empty).
      expect(seen.statements).toBeGreaterThanOrEqual(1 + Math.ceil(answer.length / 40));
      expect(seen.statements).toBeLessThanOrEqual(2 + Math.ceil(answer.length / 40));
    });

    it('stops reading when it is destroyed (the client went away)', async () => {
      const { db, seen } = counted();
      const body = await streamOf(db, 10);
      const first = await new Promise<string>((resolve) => body.once('data', (chunk: Buffer) => resolve(String(chunk))));
      expect(first).toBe('[');
      body.destroy();
      await new Promise((resolve) => setTimeout(resolve, 200));
      // The principals, the first page, and at most the pages read ahead before the destroy.
      expect(seen.statements).toBeLessThanOrEqual(5);
      expect(body.destroyed).toBe(true);
    });

    it('ends with an error when a page cannot be read', async () => {
      let statements = 0;
      const db = h.resources.db.withPlugin({
        transformQuery: (args) => {
          statements += 1;
          if (statements === 4) throw new Error('the database went away');
          return args.node;
        },
        transformResult: async (args) => Promise.resolve(args.result),
      });
      const body = await streamOf(db, 10);
      await expect(text(body)).rejects.toThrow('the database went away');
      expect(body.destroyed).toBe(true);
    });
  });
});
