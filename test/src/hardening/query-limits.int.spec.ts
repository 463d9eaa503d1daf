import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset, type Asset } from '../assets/assets-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';

/**
 * Issue 23, finding 4: inputs that made the structured query answer 500 now answer 400
 * with the failing path, or work; the query language's size limits (docs/asset-query.md).
 */
describe('the structured query is bounded', () => {
  let h: Harness;
  let owner: User;
  const ask = (where: unknown) => request(h.queryApp).post('/api/assets/query/').set(bearer(owner)).send({ where });
  const titles = (res: request.Response) => (res.body as Asset[]).map((a) => a.title);
  const refused = async (where: unknown, path: string) => {
    const res = await ask(where);
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
    expect(res.body).toMatchObject({ status: 400, code: 'validation_error' });
    expect(res.body.errors, JSON.stringify(res.body.errors)).toHaveProperty([path]);
    return res.body as { detail: string; errors: Record<string, string[]> };
  };

  beforeAll(async () => {
    h = await startHarness('all');
    owner = await h.createUser();
    await createAsset(h, owner, { title: 'Alpha', tags: ['t-7'], metadata: { k: 7, when: '2026-03-01T00:00:00Z' } });
    await createAsset(h, owner, { title: 'Beta', tags: ['t-1500'], metadata: { k: 1500 } });
  });
  afterAll(async () => h.close());

  it('serves long lists up to the total limit: each list is one parameter, not one per value', async () => {
    // 40 conditions × 1,000 values overflowed PostgreSQL's 65,535 parameters per statement;
    // 5,000 values in all is the limit, and they run.
    const values = (offset: number) => Array.from({ length: 1000 }, (_, i) => offset + i);
    const numbers = [0, 1000].map((offset) => ({ field: 'metadata.k', op: 'in', value: values(offset) }));
    const tags = [0, 1000].map((offset) => ({ field: 'tags', op: 'in', value: values(offset).map((v) => `t-${v}`) }));
    const named = { field: 'title', op: 'in', value: ['Alpha', 'Beta', ...Array.from({ length: 998 }, (_, i) => `x${i}`)] };
    const res = await ask({ and: [{ or: numbers }, { or: tags }, named] });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    expect(titles(res)).toEqual(['Beta', 'Alpha']);
    // Listed values keep their types: "7" is not 7.
    expect(titles(await ask({ field: 'metadata.k', op: 'in', value: ['7', 1500] }).expect(200))).toEqual(['Beta']);
    expect(titles(await ask({ not: { field: 'tags', op: 'eq', value: ['t-7'] } }).expect(200))).toEqual(['Beta']);
  });

  it('refuses more values in all than the total limit, naming the list that passed it', async () => {
    const list = Array.from({ length: 1000 }, (_, i) => `v${i}`);
    const where = { or: Array.from({ length: 40 }, () => ({ field: 'title', op: 'in', value: list })) };
    const body = await refused(where, 'where.or[5].value');
    expect(body.detail).toMatch(/5,000 values/);
  });

  it('refuses a metadata path of too many or too long keys (5,000 segments overflowed the stack)', async () => {
    const segments = Array.from({ length: 5000 }, () => 'a').join('.');
    const body = await refused({ field: `metadata.${segments}`, op: 'eq', value: 1 }, 'where.field');
    expect(body.errors['where.field']?.[0]).toMatch(/10 keys/);
    await refused({ field: `metadata.${Array.from({ length: 11 }, () => 'a').join('.')}`, op: 'exists' }, 'where.field');
    await refused({ field: `metadata.${'k'.repeat(201)}`, op: 'exists' }, 'where.field');
    await ask({ field: `metadata.${Array.from({ length: 10 }, () => 'a').join('.')}`, op: 'exists' }).expect(200);
  });

  it('refuses date-times PostgreSQL cannot read: year 0000, 29 February of a common year, an offset past 15:59', async () => {
    for (const value of ['0000-01-01T00:00:00Z', '0000-06-01', '2021-02-29T00:00:00Z', '2021-04-31', '2020-01-01T00:00:00+16:00']) {
      await refused({ field: 'created_at', op: 'gt', value }, 'where.value');
      await refused({ field: 'metadata.when', op: 'lt', value }, 'where.value');
      await refused({ field: 'updated_at', op: 'in', value: ['2020-01-01T00:00:00Z', value] }, 'where.value[1]');
    }
    expect(titles(await ask({ field: 'metadata.when', op: 'lt', value: '2024-02-29T23:59:59.5+15:59' }).expect(200))).toEqual([]);
    expect(titles(await ask({ field: 'metadata.when', op: 'gt', value: '0001-01-01' }).expect(200))).toEqual(['Alpha']);
  });

  it('refuses oversized values inside metadata lists and values nested past the metadata depth', async () => {
    await refused({ field: 'metadata.k', op: 'in', value: [1, 'x'.repeat(1001)] }, 'where.value[1]');
    await refused({ field: 'metadata.k', op: 'eq', value: 'x'.repeat(1001) }, 'where.value');
    let nested: unknown = 1;
    for (let i = 0; i < 11; i += 1) nested = [nested];
    await refused({ field: 'metadata.k', op: 'contains', value: nested }, 'where.value');
    await refused({ field: 'metadata.k', op: 'eq', value: { a: 'x'.repeat(2000) } }, 'where.value');
  });
});
