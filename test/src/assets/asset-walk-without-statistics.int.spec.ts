import { assetPage, compileAssetQuery, createReadDb, listConditions, type AssetConditions } from '@cairn/projections';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturingPool, type CapturedStatement } from '../support/statement-capture.ts';

/**
 * Pages read before `assets` has statistics (a restored or new database that was never
 * analyzed): no windows, a bounded walk of the order first. A walk that comes back short
 * says in its own statement whether the order went on past it; only when it did does an
 * unbounded statement read the rest. 50 public assets lie below 4,100 private ones, so a
 * caller who sees only the public ones meets none in the walk's first entries.
 */
describe('asset pages on a table without statistics', () => {
  let pool: pg.Pool;
  let captured: CapturedStatement[];
  const viewer = { userId: randomUUID(), isSystemAdmin: false };

  beforeAll(async () => {
    ({ pool, captured } = await capturingPool());
    // No analyze, by hand or by autovacuum, for the life of the test.
    await pool.query('alter table assets set (autovacuum_enabled = false)');
    const owner = randomUUID();
    await pool.query(
      `insert into assets (id, title, alias, description, record_type, tags, metadata, owner_type, owner_id, owner_grants, entry_grants, created_at, updated_at)
       select gen_random_uuid(), 'Asset ' || i, 'a' || i, '', 'image', '{}', '{"name": "xy"}', 'user', $1::uuid, jsonb_build_object('u:' || $1, 511),
              case when i <= 50 then '{"*": 1}'::jsonb else '{}'::jsonb end,
              timestamptz '2026-01-01' + i * interval '1 second', timestamptz '2026-01-01' + i * interval '1 second'
       from generate_series(1, 4150) i`,
      [owner],
    );
    const { rows } = await pool.query<{ n: number }>(`select count(*)::integer as n from pg_stats where tablename = 'assets'`);
    expect(rows[0]?.n).toBe(0);
  });
  afterAll(async () => pool?.end());

  const pageOf = async (conditions: AssetConditions) => {
    captured.length = 0;
    const page = await assetPage(createReadDb(pool), { viewer, conditions, after: null, limit: 100, deniedProjects: [], scanCap: 10_000 });
    return { page, statements: captured.filter((c) => c.text.includes(' as phase,')) };
  };

  it('finds the 50 the caller sees below the walk, unfiltered, filtered and post-filtered alone', async () => {
    const postFilteredAlone = compileAssetQuery({ field: 'metadata.name', op: 'prefix', value: 'x' }, { seesEveryCollection: false });
    expect(postFilteredAlone.where).toEqual([]);
    expect(postFilteredAlone.residual).toBeDefined();
    for (const [label, conditions] of [
      ['unfiltered', { where: [] }],
      ['filtered', { where: listConditions({ metadata: [], recordTypes: ['image'], tags: [], titles: [] }, false) }],
      ['post-filtered alone', postFilteredAlone],
    ] as const) {
      const { page, statements } = await pageOf(conditions);
      expect(page.count, label).toBe(50);
      expect(page.hasMore, label).toBe(false);
      // The walk, which said the order went on, then one statement for the rest.
      expect(statements.length, label).toBeGreaterThanOrEqual(2);
    }
  });
});
