import { assetPage, hashedStarsMost, listingViewerFacts, type AssetListFilter, type PagePosition } from '@cairn/projections';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customPlanOf, genericPlanOf, totalCost } from '../support/generic-plans.ts';
import { planWorld, type PlanWorld } from './asset-plan-fixtures.ts';

/**
 * PostgreSQL plans a prepared statement with its values five times, then keeps its generic
 * plan only when that costs no more than those did. A kept listing statement from a cursor
 * holds the cursor and its walk's bound `unplanned` (projections/src/keyset.ts), so that its
 * custom plans cost what the generic one does and the plan is kept: with the cursor as a
 * plain parameter, an unfiltered walk from a cursor near the top of the order was planned
 * at every call on the 1,000,000-asset bench (docs/benchmarks.md, nineteenth sitting).
 */
describe('asset listing plans: statements from a cursor settle on their generic plan', () => {
  let world: PlanWorld;
  let client: pg.PoolClient;
  // pg remembers the names it prepared on a connection: each statement gets a new one.
  let named = 0;

  beforeAll(async () => {
    world = await planWorld();
    client = await world.pool.connect();
  });
  afterAll(async () => {
    client?.release();
    await world?.pool.end();
  });

  /** The page statements a listing from `after` ran, each prepared on one connection and run eight times: how PostgreSQL planned each. */
  async function plansChosen(viewer: { userId: string; isSystemAdmin: boolean }, filter: Partial<AssetListFilter>, after: PagePosition) {
    const { statements } = await world.drivenPage(viewer, filter, { after });
    const kept = statements.filter((s) => s.text.startsWith('/* cairn:'));
    const chosen = [];
    const costs = [];
    for (const [i, statement] of kept.entries()) {
      named += 1;
      const name = `plan_choice_${named}_${i}`;
      for (let run = 0; run < 8; run += 1) await client.query({ name, text: statement.text, values: statement.values });
      const { rows } = await client.query<{ generic_plans: string; custom_plans: string }>('select generic_plans, custom_plans from pg_prepared_statements where name = $1', [name]);
      chosen.push({ generic: Number(rows[0]?.generic_plans), custom: Number(rows[0]?.custom_plans) });
      costs.push(await planCosts(statement));
    }
    return { kept: kept.map((s) => s.text), chosen, costs };
  }

  /** What PostgreSQL estimates a statement's plan costs with its values (a custom plan) and without them (the generic plan). */
  const planCosts = async (statement: { text: string; values: unknown[] }) => ({
    custom: totalCost(await customPlanOf(client, statement)),
    generic: totalCost(await genericPlanOf(client, statement)),
  });

  /** A position in the part that is not starred, `offset` assets down the order: near the top, a cursor's own estimate made the custom plans look cheapest. */
  async function cursorAt(offset: number): Promise<PagePosition> {
    const { rows } = await world.pool.query<{ created_at: string; id: string }>(
      `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at, id::text from assets order by created_at desc, id offset $1 limit 1`,
      [offset],
    );
    const row = rows[0];
    if (!row) throw new Error('no asset');
    return { phase: 'rest', createdAt: row.created_at, id: row.id };
  }

  it('an unfiltered page from a cursor walks the order with the generic plan: its custom plans cost what the generic one does', async () => {
    const reader = { userId: randomUUID(), isSystemAdmin: false };
    const { kept, chosen, costs } = await plansChosen(reader, {}, await cursorAt(150));
    expect(kept.length).toBe(1);
    expect(kept[0]).toMatch(/created_at <= \(select \$\d+::timestamptz\)/);
    expect(kept[0]).not.toMatch(/created_at <= \$\d+::timestamptz/);
    expect(costs[0]?.custom).toBe(costs[0]?.generic);
    expect(chosen).toEqual([{ generic: 3, custom: 5 }]);
  });

  it('unfiltered pages of any size read a page of the next common size: a handful of statement texts, and each page the start of a larger one', async () => {
    const reader = { userId: randomUUID(), isSystemAdmin: false };
    const page = async (limit: number) => {
      world.captured.length = 0;
      const result = await assetPage(world.db, { viewer: reader, conditions: { where: [] }, after: null, limit, deniedProjects: [], scanCap: 10_000 });
      return { result, texts: world.captured.filter((c) => c.text.includes(' as phase,')).map((c) => c.text) };
    };
    const largest = await page(250);
    const idsOf = (json: string) => (JSON.parse(json) as { id: string }[]).map((asset) => asset.id);
    const texts = new Set<string>();
    for (const limit of [1, 7, 10, 11, 26, 37, 50, 51, 99, 100, 101, 150, 200, 201, 250]) {
      const { result, texts: sent } = await page(limit);
      for (const text of sent) texts.add(text);
      expect(idsOf(result.json), `limit ${limit}`).toEqual(idsOf(largest.result.json).slice(0, limit));
      expect(result.hasMore, `limit ${limit}`).toBe(true);
    }
    // The sizes 11, 26, 51, 101, 201 and 501 rows: one text each.
    expect(texts.size).toBe(6);
    for (const text of texts) expect(text).toMatch(/parts limit (11|26|51|101|201|501)\)/);
  });

  it('a walk of the order for a filter with no index of its own, from a cursor, keeps the generic plan, its bound unplanned too', async () => {
    const reader = { userId: randomUUID(), isSystemAdmin: false };
    const { kept, chosen, costs } = await plansChosen(reader, { metadata: ['n'] }, await cursorAt(150));
    expect(kept.length).toBeGreaterThan(0);
    for (const text of kept) expect(text).toMatch(/limit \(select \$\d+::integer\)/);
    for (const cost of costs) expect(cost.custom).toBe(cost.generic);
    for (const plan of chosen) expect(plan).toEqual({ generic: 3, custom: 5 });
  });

  it("walks along a filter's own index keep their generic plans, planned alike from any cursor: a tag, an owner, a record type", async () => {
    const reader = { userId: randomUUID(), isSystemAdmin: false };
    for (const filter of [{ tags: ['common'] }, { ownerId: world.owner }, { recordTypes: ['dataset'] }] satisfies Partial<AssetListFilter>[]) {
      const near = await plansChosen(reader, filter, await cursorAt(150));
      const deep = await plansChosen(reader, filter, await cursorAt(2_500));
      expect(near.kept.length, JSON.stringify(filter)).toBeGreaterThan(0);
      expect(deep.kept[0], JSON.stringify(filter)).toBe(near.kept[0]);
      // The filter's value is planned for; the cursor and the walk's bound are not.
      expect(deep.costs[0]?.custom, JSON.stringify(filter)).toBe(near.costs[0]?.custom);
      for (const plan of [...near.chosen, ...deep.chosen]) expect(plan, JSON.stringify(filter)).toEqual({ generic: 3, custom: 5 });
    }
  });

  it("the part not starred leaves out a caller's few stars by one hash of their ids, kept in the generic plan; a caller with more stars probes them row by row; both pages the same", async () => {
    // 30 stars, every hundredth asset.
    const fan = randomUUID();
    await world.pool.query(`insert into asset_stars (user_id, asset_id, asset_created_at, starred_at) select $1::uuid, id, created_at, now() from assets where (metadata->>'n')::int % 100 = 0`, [fan]);
    await world.pool.query('analyze asset_stars');
    const viewer = { userId: fan, isSystemAdmin: false };
    try {
      const facts = await listingViewerFacts(world.db, fan);
      expect(facts.stars).toBe(30);
      const many = { ...facts, stars: hashedStarsMost + 1 };
      for (const filter of [{}, { ownerId: world.owner }] satisfies Partial<AssetListFilter>[]) {
        // From a cursor in the rest, so that the statement is the rest's walk alone.
        const after = await cursorAt(40);
        const hashed = await world.drivenPage(viewer, filter, { after, facts });
        const probed = await world.drivenPage(viewer, filter, { after, facts: many });
        expect(hashed.page.json, JSON.stringify(filter)).toBe(probed.page.json);
        expect(hashed.page.count, JSON.stringify(filter)).toBe(100);
        const [statement] = hashed.statements;
        if (!statement) throw new Error('no page statement');
        expect(statement.text, JSON.stringify(filter)).toMatch(/\.id not in \(select s\.asset_id from asset_stars s where s\.user_id = \$\d+::uuid\)/);
        expect(probed.statements[0]?.text, JSON.stringify(filter)).not.toMatch(/not in \(select s\.asset_id/);
        expect(probed.statements[0]?.text, JSON.stringify(filter)).toMatch(/s\.asset_id = (a|d)\.id limit 1\) is null/);
        // Hashed once, in the plan PostgreSQL keeps as in the one it runs; and kept (the callers' stars spread evenly, as here: docs/assets.md).
        expect(JSON.stringify(await genericPlanOf(client, statement)), JSON.stringify(filter)).toContain('hashed SubPlan');
        expect(JSON.stringify(await customPlanOf(client, statement)), JSON.stringify(filter)).toContain('hashed SubPlan');
        named += 1;
        const name = `hashed_stars_${named}`;
        for (let run = 0; run < 8; run += 1) await client.query({ name, text: statement.text, values: statement.values });
        const { rows } = await client.query<{ generic_plans: string; custom_plans: string }>('select generic_plans, custom_plans from pg_prepared_statements where name = $1', [name]);
        expect({ generic: Number(rows[0]?.generic_plans), custom: Number(rows[0]?.custom_plans) }, JSON.stringify(filter)).toEqual({ generic: 3, custom: 5 });
      }
    } finally {
      await world.pool.query('delete from asset_stars where user_id = $1::uuid', [fan]);
      await world.pool.query('analyze asset_stars');
    }
  });
});

/** Its own world: 100,000 stars written and deleted would move the statistics the plans above are made from. */
describe('asset listing plans: a caller with many stars, from the first page', () => {
  let stars: PlanWorld;
  let starsClient: pg.PoolClient;

  beforeAll(async () => {
    stars = await planWorld();
    starsClient = await stars.pool.connect();
  });
  afterAll(async () => {
    starsClient?.release();
    await stars?.pool.end();
  });

  it("a caller with many stars: the unfiltered first page and a page from a cursor in the stars keep a generic plan that walks the caller's stars in order", async () => {
    // 100,000 stars, most of assets long gone (the walk skips them): enough that a plan
    // guessing the page reads a tenth of them would read them all and sort them instead.
    // Each holds copies of its asset's owner and ten metadata terms, as the bench's do
    // (migration 0053): held in the order's index they made it so large that reading the
    // table and sorting it looked cheaper.
    const fan = randomUUID();
    await stars.pool.query(
      `insert into asset_stars (user_id, asset_id, asset_created_at, starred_at, owner_id, metadata_terms)
       select $1::uuid, id, created_at, now(), owner_id, array(select (random() * 1e18)::bigint from generate_series(1, 10)) from assets
       union all select $1::uuid, gen_random_uuid(), timestamptz '2025-01-01' + i * interval '1 second', now(), $1::uuid, array(select (random() * 1e18)::bigint from generate_series(1, 10)) from generate_series(1, 97000) i`,
      [fan],
    );
    // As autovacuum leaves a table that is mostly read: its pages all visible, so that the stars' index is read alone.
    await stars.pool.query('vacuum analyze asset_stars');
    try {
      const viewer = { userId: fan, isSystemAdmin: false };
      const first = await stars.drivenPage(viewer, {});
      const next = first.page.next;
      if (!next || next.phase !== 'starred') throw new Error('the first page should end in the stars');
      for (const page of [first, await stars.drivenPage(viewer, {}, { after: next })]) {
        const [statement] = page.statements;
        if (!statement) throw new Error('no page statement');
        const plan = JSON.stringify(await genericPlanOf(starsClient, statement));
        expect(plan).toContain('"Index Name":"asset_stars_order"');
        expect(plan).not.toMatch(/"Node Type":"Seq Scan"[^{}]*"Relation Name":"asset_stars"/);
        // No sort of the stars (a small table's walk of the order may be a sort of it: 3,000 assets).
        expect(plan).not.toMatch(/"Node Type":"Sort"[^{}]*"Sort Key":\["[^"]*asset_created_at/);
      }
    } finally {
      await stars.pool.query('delete from asset_stars where user_id = $1::uuid', [fan]);
      await stars.pool.query('analyze asset_stars');
    }
  });
});
