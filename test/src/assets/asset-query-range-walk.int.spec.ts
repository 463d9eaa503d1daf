import { projectionsRebuild, projectionsVerify } from '@cairn/cli';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createAsset, setPermissions, type Asset } from './assets-fixtures.ts';

/**
 * The walk of asset_metadata_numbers (migration 0036) against the post-filter it replaced:
 * the same query with each range wrapped in a one-element `or` (which no walk serves) is the
 * oracle. Statistics are read (ANALYZE), so that pages follow drivers and windows, and the
 * walk is cut short (CAIRN_LISTING_WALK_ROWS) so that walks stop and windows resume them.
 */
describe('range walks match the post-filter', () => {
  let h: Harness;
  let owner: User;
  let other: User;
  let admin: User;
  const ids: string[] = [];
  const ask = (who: User, where: unknown, params: Record<string, string | number> = {}) => request(h.queryApp).post('/api/assets/query/').query(params).set(bearer(who)).send({ where });

  async function everyPage(who: User, where: unknown, limit: number) {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 200; i += 1) {
      const res = await ask(who, where, { limit, ...(cursor ? { cursor } : {}) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      seen.push(...(res.body as Asset[]).map((a) => a.title));
      if (res.headers['x-has-more'] === 'false') return seen;
      cursor = res.headers['x-next-cursor'] as string;
    }
    throw new Error('the query never ended');
  }

  /** The same query with every range leaf hidden in an `or`: the post-filter's answer. */
  const oracleOf = (where: unknown): unknown => {
    if (Array.isArray(where)) return where.map(oracleOf);
    if (typeof where !== 'object' || where === null) return where;
    const node = where as Record<string, unknown>;
    if (typeof node['field'] === 'string' && ['gt', 'gte', 'lt', 'lte'].includes(node['op'] as string)) return { or: [node] };
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, oracleOf(v)]));
  };

  const sizes: unknown[] = [0, -0, 1, -1, 0.5, 1e21, 1e-7, -1e-7, 12345678901234567000, '5', null, true, [3], { x: 1 }, 10, 99, 100, 100.25, -100, 7];

  beforeAll(async () => {
    h = await startHarness('all', { CAIRN_QUERY_SCAN_CAP: '100000', CAIRN_LISTING_WALK_ROWS: '1', CAIRN_LISTING_WINDOW_ROWS: '7' });
    owner = await h.createUser();
    other = await h.createUser();
    admin = await h.createUser({ admin: true });
    for (let i = 0; i < 60; i += 1) {
      const size = sizes[i % sizes.length];
      const metadata: Record<string, unknown> = { size, deep: { er: { est: { n: i } } }, ['k'.repeat(64)]: i, [`${i % 3}`]: i };
      const who = i % 7 === 3 ? other : owner;
      const asset = await createAsset(h, who, { title: `W${i}`, record_type: i % 4 === 0 ? 'dataset' : 'image', tags: i % 5 === 0 ? ['five'] : ['plain'], metadata });
      ids.push(asset.id);
      if (i % 5 === 2 && who === owner) await setPermissions(h, owner, asset.id, [{ subject_type: 'user', subject_id: other.id, flags: 1 }]);
      if (i % 4 === 2 && who === other) await request(h.commandApp).post(`/api/assets/${asset.id}/star/`).set(bearer(other)).expect(204);
      if (i % 6 === 1 && who === owner) await request(h.commandApp).post(`/api/assets/${asset.id}/star/`).set(bearer(owner)).expect(204);
    }
    const emoji = '\u{1F600}'.repeat(64);
    const odd: Record<string, unknown>[] = [
      { '': 5, 'a.b': 5, [emoji]: 5, ['q'.repeat(65)]: 5, size: 5e-324 },
      { size: 1.7976931348623157e308, a: { b: { c: { d: 1, e: { f: 2 } } } }, arr: [{ n: 3 }] },
      { size: 0.1 + 0.2, a: { b: { c: { d: 2 } } }, [emoji]: 6 },
      { size: -1.7976931348623157e308, a: [{ b: 1 }] },
    ];
    for (const [i, metadata] of odd.entries()) {
      const asset = await createAsset(h, owner, { title: `O${i}`, metadata });
      ids.push(asset.id);
    }
    // Changes: a number becomes text, text becomes a number, an asset goes.
    await request(h.commandApp).patch(`/api/assets/${ids[1] as string}/`).set(bearer(owner)).send({ metadata: { size: 'one' } }).expect(200);
    await request(h.commandApp).patch(`/api/assets/${ids[9] as string}/`).set(bearer(owner)).send({ metadata: { size: 9.5, deep: { er: { est: { n: 9 } } } } }).expect(200);
    await request(h.commandApp).delete(`/api/assets/${ids[2] as string}/`).set(bearer(owner)).expect(204);
    await h.resources.pool.query('analyze assets; analyze asset_metadata_numbers; analyze asset_tag_order; analyze asset_stars');
  });

  it('keeps asset_metadata_numbers as the migration\'s function makes it from assets.metadata', async () => {
    const { rows } = await h.resources.pool.query(`
      (select asset_id, path, value, created_at from asset_metadata_numbers
       except all select a.id, n.path, n.value, a.created_at from assets a cross join lateral cairn_metadata_numbers(a.metadata) n)
      union all
      (select a.id, n.path, n.value, a.created_at from assets a cross join lateral cairn_metadata_numbers(a.metadata) n
       except all select asset_id, path, value, created_at from asset_metadata_numbers)`);
    expect(rows).toEqual([]);
    const verified = await projectionsVerify(h.resources, ['assets']);
    expect(verified.verified[0]?.differences, JSON.stringify(verified.verified[0]?.samples)).toBe(0);
    const before = (await h.resources.pool.query('select asset_id, path::text, value::text from asset_metadata_numbers order by 1, 2, 3')).rows;
    await projectionsRebuild(h.resources, ['assets']);
    expect((await h.resources.pool.query('select asset_id, path::text, value::text from asset_metadata_numbers order by 1, 2, 3')).rows).toEqual(before);
    await h.resources.pool.query('analyze assets; analyze asset_metadata_numbers');
  });
  afterAll(async () => h.close());

  const range = (field: string, op: string, value: number) => ({ field, op, value });
  const queries: unknown[] = [
    range('metadata.size', 'gt', 0),
    range('metadata.size', 'gte', 0),
    range('metadata.size', 'lte', 0),
    range('metadata.size', 'lt', 0),
    range('metadata.size', 'gte', -0),
    range('metadata.size', 'gt', 1e20),
    range('metadata.size', 'lt', 1e-6),
    range('metadata.size', 'gte', 12345678901234567000),
    range('metadata.deep.er.est.n', 'gte', 30),
    range(`metadata.${'k'.repeat(64)}`, 'lt', 20),
    { and: [range('metadata.size', 'gte', 1), { field: 'tags', op: 'contains', value: 'five' }] },
    { and: [range('metadata.size', 'gte', 1), { field: 'record_type', op: 'eq', value: 'dataset' }] },
    { and: [range('metadata.size', 'gte', 1), { field: 'title', op: 'prefix', value: 'W1' }] },
    { and: [range('metadata.size', 'gte', 1), range('metadata.deep.er.est.n', 'lt', 40)] },
    { and: [range('metadata.size', 'gte', 1), { not: { field: 'tags', op: 'contains', value: 'five' } }] },
    { and: [{ field: 'metadata.size', op: 'prefix', value: '5' }, range('metadata.deep.er.est.n', 'lt', 40)] },
    range('metadata.size', 'lt', 1e-300),
    range('metadata.size', 'gt', 1e300),
    range('metadata.size', 'lt', -1e300),
    range('metadata.a.b.c.d', 'gte', 1),
    range('metadata.a.b.c.e.f', 'gte', 1),
    range('metadata.a.b', 'gte', 1),
    range(`metadata.${'\u{1F600}'.repeat(64)}`, 'gte', 1),
    range(`metadata.${'q'.repeat(65)}`, 'gte', 1),
    range('metadata.size', 'gte', 0.30000000000000004),
    range('metadata.size', 'lte', 0.3),
  ];

  it('gives every page of the post-filter, for the owner and another caller, at several page sizes', async () => {
    for (const where of queries) {
      for (const who of [owner, other, admin]) {
        const want = await everyPage(who, oracleOf(where), 1000);
        for (const limit of [1, 3, 1000]) expect(await everyPage(who, where, limit), `${JSON.stringify(where)} limit ${limit}`).toEqual(want);
      }
    }
  });

  it('pages once over each unchanged asset in range while others are created and changed', async () => {
    const stable = new Set<string>();
    for (let i = 0; i < 30; i += 1) {
      await createAsset(h, owner, { title: `S${i}`, metadata: { level: i } });
      stable.add(`S${i}`);
    }
    const movers = [];
    for (let i = 0; i < 10; i += 1) movers.push(await createAsset(h, owner, { title: `M${i}`, metadata: { level: 1000 + i } }));
    await h.resources.pool.query('analyze assets; analyze asset_metadata_numbers');
    let writing = true;
    const writer = (async () => {
      let round = 0;
      while (writing) {
        round += 1;
        await createAsset(h, owner, { title: `N${round}`, metadata: { level: round } });
        const mover = movers[round % movers.length] as Asset;
        await request(h.commandApp).patch(`/api/assets/${mover.id}/`).set(bearer(owner)).send({ metadata: { level: round % 2 ? 'x' : round } }).expect(200);
      }
    })();
    try {
      for (const limit of [1, 2, 5]) {
        const seen = await everyPage(owner, { field: 'metadata.level', op: 'gte', value: 0 }, limit);
        expect(new Set(seen).size, seen.join()).toBe(seen.length);
        for (const title of stable) expect(seen, `limit ${limit}`).toContain(title);
      }
    } finally {
      writing = false;
      await writer;
    }
  });

  it('agrees with the post-filter on random metadata and random ranges', async () => {
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
    const numbers = [0, -0, 1, -1, 2.5, -2.5, 1e21, -1e21, 1e-7, 3, 1e300, 123456789.125, 0.30000000000000004];
    const valueOf = (): unknown => pick<() => unknown>([() => pick(numbers), () => pick(numbers), () => String(pick(numbers)), () => null, () => [pick(numbers)], () => ({ v: pick(numbers) }), () => true])();
    const users = [owner, other];
    for (let i = 0; i < 80; i += 1) {
      const metadata: Record<string, unknown> = {};
      if (rand() < 0.8) metadata['r'] = valueOf();
      if (rand() < 0.5) metadata['p'] = { q: valueOf(), '1': valueOf() };
      if (rand() < 0.3) metadata['arr'] = [{ v: pick(numbers) }];
      const who = pick(users);
      const asset = await createAsset(h, who, { title: `F${i}`, record_type: pick(['dataset', 'image', 'rare']), metadata });
      if (rand() < 0.3) await request(h.commandApp).post(`/api/assets/${asset.id}/star/`).set(bearer(pick(users))).expect((r) => expect([204, 403, 404]).toContain(r.status));
      if (rand() < 0.2) await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(who)).send({ metadata: { r: valueOf() } }).expect(200);
    }
    await h.resources.pool.query('analyze assets; analyze asset_metadata_numbers; analyze asset_stars');
    for (let q = 0; q < 40; q += 1) {
      const leaf = { field: pick(['metadata.r', 'metadata.p.q', 'metadata.p.1', 'metadata.r.v', 'metadata.arr.0.v']), op: pick(['gt', 'gte', 'lt', 'lte']), value: pick(numbers) };
      const where = pick<unknown>([leaf, { and: [leaf, { field: 'record_type', op: 'eq', value: pick(['dataset', 'image', 'rare']) }] }, { and: [leaf, { field: 'title', op: 'prefix', value: 'F1' }] }, { and: [{ field: 'title', op: 'prefix', value: 'F' }, leaf] }]);
      for (const who of [owner, other, admin]) {
        const want = await everyPage(who, oracleOf(where), 1000);
        const limit = pick([1, 2, 7]);
        expect(await everyPage(who, where, limit), `${JSON.stringify(where)} limit ${limit}`).toEqual(want);
      }
    }
  });
});
