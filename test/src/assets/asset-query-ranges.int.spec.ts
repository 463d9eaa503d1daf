import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createAsset, type Asset } from './assets-fixtures.ts';

/**
 * A query's range on a metadata number walks asset_metadata_numbers (migration 0036,
 * docs/asset-query.md "Ranges on metadata numbers"): the same pages as the post-filter
 * gave, without it, and the table follows every change of an asset's metadata.
 */
describe('ranges on metadata numbers', () => {
  let h: Harness;
  let owner: User;
  let stranger: User;
  type Seeded = { title: string; metadata: Record<string, unknown>; recordType: string };
  const seeded: Seeded[] = [];
  const titles = (res: request.Response) => (res.body as Asset[]).map((a) => a.title);
  const ask = (who: User, where: unknown, params: Record<string, string | number> = {}) => request(h.queryApp).post('/api/assets/query/').query(params).set(bearer(who)).send({ where });

  /** Every page of a query, `limit` at a time. */
  async function everyPage(who: User, where: unknown, limit: number) {
    const seen: string[] = [];
    const postFiltered = new Set<string | undefined>();
    let cursor: string | undefined;
    for (let i = 0; i < 60; i += 1) {
      const res = await ask(who, where, { limit, ...(cursor ? { cursor } : {}) }).expect(200);
      seen.push(...titles(res));
      postFiltered.add(res.headers['x-post-filter'] as string | undefined);
      if (res.headers['x-has-more'] === 'false') return { seen, postFiltered };
      cursor = res.headers['x-next-cursor'] as string;
    }
    throw new Error('the query never ended');
  }

  /** The titles the query should answer, newest first, from what was seeded. */
  const expected = (test: (s: Seeded) => boolean) => seeded.filter(test).map((s) => s.title).reverse();
  const sizeOf = (s: Seeded) => s.metadata['size'];

  beforeAll(async () => {
    // A scan cap of 5 would show a post-filter at once: capped, short pages.
    h = await startHarness('all', { CAIRN_QUERY_SCAN_CAP: '5' });
    owner = await h.createUser();
    stranger = await h.createUser();
    for (let i = 0; i < 24; i += 1) {
      const metadata: Record<string, unknown> =
        i % 6 === 5
          ? { size: String(i * 10), list: [i, i + 1] } // the text "50" is no number
          : { size: i % 2 ? -i * 10 : i * 10 + 0.5, deep: { er: { n: i } }, list: [i * 100], '7': i, huge: 12345678901234567000 + i };
      const recordType = i % 3 === 0 ? 'dataset' : 'image';
      await createAsset(h, owner, { title: `R${i}`, record_type: recordType, metadata });
      seeded.push({ title: `R${i}`, metadata, recordType });
    }
    // Another owner's numbers in range are not the caller's to see.
    await createAsset(h, stranger, { title: 'Hidden', metadata: { size: 99_999 } });
  });
  afterAll(async () => h.close());

  it('pages each operator exactly, without post-filtering', async () => {
    const num = (s: Seeded) => (typeof sizeOf(s) === 'number' ? (sizeOf(s) as number) : undefined);
    for (const [op, value, test] of [
      ['gt', 100, (n: number) => n > 100],
      ['gte', 100.5, (n: number) => n >= 100.5],
      ['lt', -50, (n: number) => n < -50],
      ['lte', 0.5, (n: number) => n <= 0.5],
      ['gt', 1e9, (n: number) => n > 1e9],
    ] as const) {
      const { seen, postFiltered } = await everyPage(owner, { field: 'metadata.size', op, value }, 3);
      expect(seen, `${op} ${value}`).toEqual(expected((s) => num(s) !== undefined && test(num(s) as number)));
      expect([...postFiltered]).toEqual([undefined]);
    }
  });

  it('walks nested paths and keys of digits in objects only through the post-filter, with the same answers', async () => {
    const nested = await everyPage(owner, { field: 'metadata.deep.er.n', op: 'gte', value: 20 }, 2);
    expect(nested.seen).toEqual(expected((s) => typeof s.metadata['deep'] === 'object' && Number(((s.metadata['deep'] as { er: { n: number } }).er.n)) >= 20));
    expect([...nested.postFiltered]).toEqual([undefined]);
    // `metadata.list.0` reaches into a list, which the table does not hold: the post-filter answers.
    const listed = await everyPage(owner, { field: 'metadata.list.0', op: 'gte', value: 1000 }, 50);
    expect(listed.seen).toEqual(expected((s) => Array.isArray(s.metadata['list']) && (s.metadata['list'] as number[])[0] !== undefined && ((s.metadata['list'] as number[])[0] as number) >= 1000));
    expect(listed.postFiltered.has('true')).toBe(true);
    const digits = await everyPage(owner, { field: 'metadata.7', op: 'lt', value: 3 }, 50);
    expect(digits.seen).toEqual(['R2', 'R1', 'R0']);
    // Numbers past a double's exact integers compare as PostgreSQL stored them.
    const huge = await everyPage(owner, { field: 'metadata.huge', op: 'gt', value: 12345678901234567000 }, 50);
    expect(huge.seen).toEqual(expected((s) => typeof s.metadata['huge'] === 'number' && (s.metadata['huge'] as number) > 12345678901234567000));
  });

  it('keeps the other conditions: a record type, another range, a post-filtered prefix', async () => {
    const typed = await everyPage(owner, { and: [{ field: 'record_type', op: 'eq', value: 'dataset' }, { field: 'metadata.size', op: 'gt', value: 0 }] }, 2);
    expect(typed.seen).toEqual(expected((s) => s.recordType === 'dataset' && typeof sizeOf(s) === 'number' && (sizeOf(s) as number) > 0));
    const between = await everyPage(owner, { and: [{ field: 'metadata.size', op: 'gt', value: 40 }, { field: 'metadata.size', op: 'lt', value: 161 }] }, 50);
    expect(between.seen).toEqual(expected((s) => typeof sizeOf(s) === 'number' && (sizeOf(s) as number) > 40 && (sizeOf(s) as number) < 161));
    // The second range stays a post-filter, checked on the walk's assets only.
    expect(between.postFiltered.has('true')).toBe(true);
  });

  it('follows changes of an asset\'s metadata and its deletion', async () => {
    const made = await createAsset(h, owner, { title: 'Moving', metadata: { size: 5 } });
    const inRange = async () => titles(await ask(owner, { field: 'metadata.size', op: 'gte', value: 50_000 }).expect(200));
    expect(await inRange()).toEqual([]);
    await request(h.commandApp).patch(`/api/assets/${made.id}/`).set(bearer(owner)).send({ metadata: { size: 50_000, other: 1 } }).expect(200);
    expect(await inRange()).toEqual(['Moving']);
    await request(h.commandApp).patch(`/api/assets/${made.id}/`).set(bearer(owner)).send({ metadata: { size: 'many' } }).expect(200);
    expect(await inRange()).toEqual([]);
    await request(h.commandApp).patch(`/api/assets/${made.id}/`).set(bearer(owner)).send({ metadata: { size: 70_000 } }).expect(200);
    expect(await inRange()).toEqual(['Moving']);
    // The numbers' rows hold the asset's record type (migration 0038), which a walk beside a type checks: a change of the type alone moves them too.
    const typed = async (type: string) => titles(await ask(owner, { and: [{ field: 'record_type', op: 'eq', value: type }, { field: 'metadata.size', op: 'gte', value: 50_000 }] }).expect(200));
    const numberTypes = async () => (await h.resources.pool.query<{ record_type: string }>('select distinct record_type from asset_metadata_numbers where asset_id = $1', [made.id])).rows.map((r) => r.record_type);
    await request(h.commandApp).patch(`/api/assets/${made.id}/`).set(bearer(owner)).send({ record_type: 'software' }).expect(200);
    expect(await numberTypes()).toEqual(['software']);
    expect(await typed('software')).toEqual(['Moving']);
    await request(h.commandApp).patch(`/api/assets/${made.id}/`).set(bearer(owner)).send({ record_type: 'model', metadata: { size: 80_000 } }).expect(200);
    expect(await numberTypes()).toEqual(['model']);
    expect(await typed('model')).toEqual(['Moving']);
    expect(await typed('software')).toEqual([]);
    await request(h.commandApp).delete(`/api/assets/${made.id}/`).set(bearer(owner)).expect(204);
    expect(await inRange()).toEqual([]);
    const { rows } = await h.resources.pool.query('select 1 from asset_metadata_numbers where asset_id = $1', [made.id]);
    expect(rows).toEqual([]);
  });

  it('never shows another caller\'s assets in range', async () => {
    expect(titles(await ask(owner, { field: 'metadata.size', op: 'gt', value: 50_000 }).expect(200))).toEqual([]);
    expect(titles(await ask(stranger, { field: 'metadata.size', op: 'gt', value: 50_000 }).expect(200))).toEqual(['Hidden']);
  });
});
