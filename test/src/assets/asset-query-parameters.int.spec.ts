import { randomUUID } from 'node:crypto';
import { assetPage, compileAssetQuery, createReadDb, type ReadDb } from '@cairn/projections';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturingPool, type CapturedStatement } from '../support/statement-capture.ts';

/**
 * The structured query sends a list as one array parameter (issue 23): a statement's
 * parameters no longer grow with the values (65,535 at most per statement), and the
 * statement text is the same for every list length, so one prepared plan serves them.
 * 3,000 assets written straight into the read model.
 */
describe('structured query parameters', () => {
  let pool: pg.Pool;
  let db: ReadDb;
  let captured: CapturedStatement[] = [];
  const owner = randomUUID();

  beforeAll(async () => {
    ({ pool, captured } = await capturingPool());
    db = createReadDb(pool);
    await pool.query(
      `insert into assets (id, title, alias, description, record_type, tags, metadata, owner_type, owner_id, owner_grants, entry_grants, created_at, updated_at)
       select gen_random_uuid(), 'Asset ' || i, 'a' || i, '', 'dataset', array['tag' || (i % 10)], jsonb_build_object('n', i),
              'user', $1::uuid, jsonb_build_object('u:' || $1, 511), '{}'::jsonb,
              timestamptz '2026-01-01' + i * interval '1 second', timestamptz '2026-01-01' + i * interval '1 second'
       from generate_series(1, 3000) i`,
      [owner],
    );
  });
  afterAll(async () => pool?.end());

  async function pageOf(where: unknown) {
    captured.length = 0;
    const page = await assetPage(db, { viewer: { userId: owner, isSystemAdmin: false }, conditions: compileAssetQuery(where, { seesEveryCollection: false }), after: null, limit: 100, deniedProjects: [], scanCap: 10_000 });
    const statement = captured.findLast((c) => c.text.includes('union all'));
    if (!statement) throw new Error('the page statement was not captured');
    return { page, statement };
  }

  it('sends every list as one parameter, whatever its length', async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => 10_000 + i);
    const where = (n: number) => ({
      and: [
        { field: 'metadata.n', op: 'in', value: [7, 1500, 2999, ...many(n - 3)] },
        { field: 'title', op: 'in', value: ['Asset 7', 'Asset 1500', 'Asset 2999', ...many(n - 3).map(String)] },
        { field: 'tags', op: 'in', value: ['tag7', 'tag0', 'tag9', ...many(n - 3).map(String)] },
      ],
    });
    const long = await pageOf(where(1000));
    const short = await pageOf(where(3));
    expect(long.page.json).toBe(short.page.json);
    expect(long.page.count).toBe(3);
    expect(long.statement.values.length).toBeLessThan(30);
    expect(long.statement.values.length).toBe(short.statement.values.length);
    expect(long.statement.text).toBe(short.statement.text);
  });
});
