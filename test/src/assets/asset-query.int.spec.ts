import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createAsset, type Asset } from './assets-fixtures.ts';

describe('the structured asset query', () => {
  let h: Harness;
  let owner: User;
  const titles = (res: request.Response) => (res.body as Asset[]).map((a) => a.title);
  const ask = (where: unknown, params: Record<string, string | number> = {}) => request(h.queryApp).post('/api/assets/query/').query(params).set(bearer(owner)).send({ where });

  beforeAll(async () => {
    h = await startHarness('all', { CAIRN_QUERY_SCAN_CAP: '5' });
    owner = await h.createUser();
    for (let i = 0; i < 12; i += 1) {
      await createAsset(h, owner, {
        title: `Q${i}`,
        alias: i % 3 === 0 ? `core-${i}` : '',
        record_type: i % 2 ? 'image' : 'dataset',
        tags: i % 4 === 0 ? ['ice', 'core'] : ['ice'],
        metadata: { size: i * 100, site: { name: i < 6 ? 'Dome C' : 'Vostok' }, taken: `2026-01-${String(i + 1).padStart(2, '0')}T00:00:00Z`, labels: ['x', `l${i}`] },
      });
    }
  });
  afterAll(async () => h.close());

  it('runs index-served conditions in SQL, in the listing order', async () => {
    const res = await ask({ and: [{ field: 'record_type', op: 'eq', value: 'dataset' }, { field: 'metadata.site.name', op: 'eq', value: 'Dome C' }] }).expect(200);
    expect(titles(res)).toEqual(['Q4', 'Q2', 'Q0']);
    expect(res.headers['x-post-filter']).toBeUndefined();
    expect(res.headers['x-has-more']).toBe('false');
    const or = await ask({ or: [{ field: 'tags', op: 'contains', value: 'core' }, { field: 'alias', op: 'prefix', value: 'CORE-9' }] }).expect(200);
    expect(titles(or)).toEqual(['Q9', 'Q8', 'Q4', 'Q0']);
    const not = await ask({ not: { field: 'metadata.labels', op: 'contains', value: 'x' } }).expect(200);
    expect(titles(not)).toEqual([]);
    const exists = await ask({ field: 'metadata.site.name', op: 'exists' }).expect(200);
    expect(titles(exists)).toHaveLength(12);
  });

  it('post-filters metadata ranges under the scan cap, resuming after the last row scanned', async () => {
    // size > 250 holds for Q3..Q11; the cap (5 here) bounds each page's scan.
    const where = { and: [{ field: 'tags', op: 'contains', value: 'ice' }, { field: 'metadata.size', op: 'gt', value: 250 }] };
    const seen: string[] = [];
    let cursor: string | undefined;
    let capHits = 0;
    for (let i = 0; i < 20; i += 1) {
      const res = await ask(where, { limit: 2, ...(cursor ? { cursor } : {}) }).expect(200);
      expect(res.headers['x-post-filter']).toBe('true');
      if (res.headers['x-scan-cap-hit'] === 'true') {
        capHits += 1;
        expect(Number(res.headers['x-scan-scanned'])).toBe(5);
      }
      seen.push(...titles(res));
      if (res.headers['x-has-more'] === 'false') break;
      cursor = res.headers['x-next-cursor'] as string;
    }
    expect(seen).toEqual(['Q11', 'Q10', 'Q9', 'Q8', 'Q7', 'Q6', 'Q5', 'Q4', 'Q3']);
    expect(capHits).toBe(0);

    // A rare match: each page examines 5 rows at most, so pages may be short or empty while more may follow.
    // (Under an `or`: a range alone walks the path's numbers, asset-query-ranges.int.spec.ts.)
    const rare = { or: [{ field: 'metadata.size', op: 'gte', value: 1100 }, { field: 'metadata.size', op: 'gte', value: 1e9 }] };
    const first = await ask(rare, { limit: 2 }).expect(200);
    expect(titles(first)).toEqual(['Q11']);
    expect(first.headers).toMatchObject({ 'x-post-filter': 'true', 'x-scan-cap-hit': 'true', 'x-scan-scanned': '5', 'x-has-more': 'true' });
    const second = await ask(rare, { limit: 2, cursor: first.headers['x-next-cursor'] as string }).expect(200);
    expect(titles(second)).toEqual([]);
    expect(second.headers).toMatchObject({ 'x-scan-cap-hit': 'true', 'x-has-more': 'true' });
    const last = await ask(rare, { limit: 2, cursor: second.headers['x-next-cursor'] as string }).expect(200);
    expect(titles(last)).toEqual([]);
    expect(last.headers['x-has-more']).toBe('false');
    expect(last.headers['x-scan-cap-hit']).toBeUndefined();
    // Date-times inside metadata compare as date-times; the oldest two sit behind two capped pages.
    const dates: string[] = [];
    let next: string | undefined;
    for (let i = 0; i < 5; i += 1) {
      const res = await ask({ field: 'metadata.taken', op: 'lt', value: '2026-01-03T00:00:00Z' }, next ? { cursor: next } : {}).expect(200);
      dates.push(...titles(res));
      if (res.headers['x-has-more'] === 'false') break;
      next = res.headers['x-next-cursor'] as string;
    }
    expect(dates).toEqual(['Q1', 'Q0']);
  });

  it('names the failing path of a bad query', async () => {
    const cases: [unknown, string][] = [
      [{ and: [{ field: 'title', op: 'eq', value: 'x' }, { field: 'title', op: 'near', value: 'x' }] }, 'where.and[1].op'],
      [{ field: 'colour', op: 'eq', value: 'x' }, 'where.field'],
      [{ field: 'created_at', op: 'gt', value: 'yesterday' }, 'where.value'],
      [{ field: 'title', op: 'gt', value: 'x' }, 'where.op'],
      [{ or: [] }, 'where.or'],
      [{ field: 'is_locked', op: 'eq', value: 'yes' }, 'where.value'],
      [{ field: 'owner_id', op: 'in', value: ['nope'] }, 'where.value[0]'],
      [{ field: 'title', op: 'exists', value: 1 }, 'where.value'],
      ['title', 'where'],
    ];
    for (const [where, path] of cases) {
      const res = await ask(where).expect(400);
      expect(res.body.errors, JSON.stringify(where)).toHaveProperty([path]);
    }
    let deep: unknown = { field: 'title', op: 'eq', value: 'x' };
    for (let i = 0; i < 12; i += 1) deep = { not: deep };
    const tooDeep = await ask(deep).expect(400);
    expect(Object.keys(tooDeep.body.errors as object)[0]).toMatch(/^where(\.not)+$/);
    await request(h.queryApp).post('/api/assets/query/').set(bearer(owner)).send({}).expect(400);
  });
});
