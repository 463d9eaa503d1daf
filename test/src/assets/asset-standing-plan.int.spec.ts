import { assetStanding, createReadDb, type ReadDb } from '@cairn/projections';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturingPool, type CapturedStatement } from '../support/statement-capture.ts';

/**
 * The read of one asset (`assetStanding`: GET /api/assets/{id}/ and every asset route) for a
 * caller who reads many collections, of an asset held in one of them. The statement's kept
 * (generic) plan once ANDed the index of every collection's readers into the lookup of the
 * asset's own collections (3,317 entries for the benchmark's caller, a third of the read)
 * and worked out what the collections give the caller three times.
 */
type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; 'Actual Loops': number; Plans?: PlanNode[] };

/** The nodes of an EXPLAIN (ANALYZE, FORMAT JSON) answer that ran at least once. */
function executedNodes(answer: unknown): PlanNode[] {
  const root = (answer as [{ Plan: PlanNode }])[0].Plan;
  const all: PlanNode[] = [];
  const visit = (node: PlanNode) => {
    if (node['Actual Loops'] > 0) all.push(node);
    for (const child of node.Plans ?? []) visit(child);
  };
  visit(root);
  return all;
}

describe('the read of one asset held in collections', () => {
  let pool: pg.Pool;
  let db: ReadDb;
  let captured: CapturedStatement[] = [];
  const caller = randomUUID();
  const owner = randomUUID();
  const asset = randomUUID();
  const holding = randomUUID();

  beforeAll(async () => {
    ({ pool, captured } = await capturingPool());
    db = createReadDb(pool);
    // 5,000 collections, 3,000 of whose entries let the caller read what they hold (as for the
    // benchmark's caller, so that PostgreSQL plans as it does there); the asset is in the first,
    // and its own grants give the caller nothing.
    await pool.query(
      `insert into collections (id, title, alias, owner_type, owner_user_id, parent_ids, owner_grants, entry_grants, created_at, updated_at)
       select case when i = 1 then $3::uuid else gen_random_uuid() end, 'Shared ' || i, 's' || i, 'user', $2::uuid, '{}',
              jsonb_build_object('u:' || $2, 511), case when i <= 3000 then jsonb_build_object('u:' || $1, 3) else '{}'::jsonb end,
              now() - i * interval '1 minute', now()
       from generate_series(1, 5000) i`,
      [caller, owner, holding],
    );
    await pool.query(
      `insert into assets (id, title, alias, description, record_type, tags, metadata, owner_type, owner_id, owner_grants, entry_grants, collection_ids, created_at, updated_at)
       values ($1, 'Held', '', '', 'dataset', '{}', '{}', 'user', $2::uuid, jsonb_build_object('u:' || $2, 511), '{}', array[$3::uuid], now(), now())`,
      [asset, owner, holding],
    );
    await pool.query('vacuum analyze collections');
    await pool.query('analyze assets');
  });
  afterAll(async () => pool?.end());

  it('reads the holding collections by key, never the readers of every collection, and gives the caller what they grant', async () => {
    captured.length = 0;
    const { asset: read } = await assetStanding(db, asset, { userId: caller, isSystemAdmin: false });
    expect(read).toMatchObject({ id: asset, flags: 3, inheritedFlags: 3 });
    expect(JSON.parse(read?.json ?? 'null')).toMatchObject({ id: asset, collection_ids: [holding], effective_flags: 3, access_scope: 'collection' });
    const statement = captured.at(-1);
    if (!statement) throw new Error('the read was not captured');
    const client = await pool.connect();
    try {
      // The plan PostgreSQL keeps for the prepared read (generic), and what it runs.
      await client.query('set plan_cache_mode = force_generic_plan');
      const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, verbose, format json) ${statement.text}`, statement.values);
      const plan = JSON.stringify(rows[0]?.['QUERY PLAN']);
      // Each collection the read reaches, it reaches by key: no readers' index, no scan of them all.
      const reached = executedNodes(rows[0]?.['QUERY PLAN']).filter((n) => n['Relation Name'] === 'collections' || /^collections_/.test(n['Index Name'] ?? ''));
      expect(reached.length).toBeGreaterThan(0);
      for (const node of reached) expect(`${node['Node Type']} ${node['Index Name'] ?? ''}`).toMatch(/^(Index Scan|Index Only Scan|Bitmap Heap Scan|Bitmap Index Scan) ?(collections_pkey)?$/);
      // What the collections give the caller is worked out once, in its own subquery.
      expect(plan.match(/cairn_collection_flags\(/g)?.length).toBe(1);
    } finally {
      await client.query('reset plan_cache_mode');
      client.release();
    }
  });
});
