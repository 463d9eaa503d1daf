import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryPageWorld, type QueryPageWorld } from './query-page-fixtures.ts';
import type { CapturedStatement } from '../support/statement-capture.ts';

/**
 * The structured query's conditions outside any `not` reach the indexes (issue 24): each
 * leaf was wrapped in `(...) is true`, which no index matches, so a query whose matches are
 * rare read the whole table (a sequential scan of assets, 4 s a page over 200,000 assets).
 * 3,000 assets written straight into the read model, a tag on 3 of them.
 */
describe('structured query plans', () => {
  let world: QueryPageWorld;

  beforeAll(async () => {
    world = await queryPageWorld(3000, {
      recordType: "case when i % 3 = 0 then 'dataset' else 'image' end",
      tags: "case when i % 1000 = 7 then array['rare', 'tag' || (i % 10)] else array['common', 'tag' || (i % 10)] end",
      metadata: "jsonb_build_object('n', i, 'instrument', 'INST-' || (i % 1000))",
    });
  });
  afterAll(async () => world?.pool.end());

  /** The page, and the plan of the last page statement it ran. */
  async function planOf(where: unknown) {
    const { page, statement } = await world.pageOf(where);
    const { rows } = await world.pool.query<{ 'QUERY PLAN': unknown }>(`explain (format json) ${statement.text}`, statement.values);
    return { page, plan: JSON.stringify(rows[0]?.['QUERY PLAN']) };
  }

  it('a rare tag in a query is a walk of its rows in asset_tag_order, alone and under and, and a bitmap on assets_tags under or', async () => {
    for (const where of [
      { field: 'tags', op: 'contains', value: 'rare' },
      { and: [{ field: 'tags', op: 'contains', value: 'rare' }, { field: 'record_type', op: 'in', value: ['image', 'dataset'] }] },
      { or: [{ field: 'tags', op: 'contains', value: 'rare' }, { field: 'tags', op: 'eq', value: ['nobody'] }] },
    ]) {
      const { page, plan } = await planOf(where);
      expect(page.count).toBe(3);
      expect(plan).toMatch('or' in where ? /"Node Type":"Bitmap Index Scan"[^}]*"Index Name":"assets_tags"/ : /"Index Name":"asset_tag_order_walk"/);
      expect(plan).not.toMatch(/"Node Type":"Seq Scan","Parent Relationship":"[^"]*","Parallel Aware":(true|false),"Async Capable":(true|false),"Relation Name":"assets"/);
    }
  });

  it('a rare metadata value in a query is a walk of its rows in asset_metadata_order', async () => {
    const { page, plan } = await planOf({ and: [{ field: 'metadata.instrument', op: 'eq', value: 'INST-7' }, { field: 'record_type', op: 'ne', value: 'model' }] });
    expect(page.count).toBe(3);
    expect(plan).toMatch(/"Index Name":"asset_metadata_order_walk"/);
  });

  it("a metadata value beside tags walks the value's rows and checks the tags hashed on each (migration 0048), joining no tag's rows and fetching only the assets of both", async () => {
    await world.pool.query('vacuum analyze asset_metadata_order');
    // INST-7 is on 7, 1,007 and 2,007, which hold `rare` and `tag7`, not `common`.
    for (const [tags, count] of [
      [['tag7'], 3],
      [['rare', 'tag7'], 3],
      [['common'], 0],
      [['tag7', 'tag8'], 0],
    ] as const) {
      const where = { and: [{ field: 'metadata.instrument', op: 'eq', value: 'INST-7' }, ...tags.map((value) => ({ field: 'tags', op: 'contains', value }))] };
      const { page, statement } = await world.pageOf(where);
      expect(page.count, JSON.stringify(tags)).toBe(count);
      expect(statement.text).not.toContain('asset_tag_order');
      const { rows } = await world.pool.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${statement.text}`, statement.values);
      const plan = JSON.stringify(rows[0]?.['QUERY PLAN']);
      expect(plan).toMatch(/"Node Type":"Index Only Scan"[^}]*"Index Name":"asset_metadata_order_walk"/);
      const fetched = [...plan.matchAll(/"Index Name":"assets_pkey"[^}]*?"Actual Rows":(\d+),"Actual Loops":(\d+)/g)].reduce((sum, m) => sum + Number(m[1]) * Number(m[2]), 0);
      expect(fetched, JSON.stringify(tags)).toBeLessThanOrEqual(count);
    }
  });

  /** The plan of a captured statement, run. */
  async function analyzed(statement: { text: string; values: unknown[] }) {
    const { rows } = await world.pool.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${statement.text}`, statement.values);
    return JSON.stringify(rows[0]?.['QUERY PLAN']);
  }

  /** Entries read from each index of asset_metadata_numbers a plan reads, by name. */
  const numbersRead = (plan: string) =>
    [...plan.matchAll(/"Index Name":"(asset_metadata_numbers[a-z_]*)"[^}]*?"Actual Rows":(\d+),"Actual Loops":(\d+)(?:[^}]*?"Rows Removed by Filter":(\d+))?/g)].map((m) => ({
      index: m[1] as string,
      read: (Number(m[2]) + Number(m[4] ?? 0)) * Number(m[3]),
    }));

  it("a range on a metadata number walks the path's numbers index-only, and fetches only the assets in range", async () => {
    await world.pool.query('vacuum analyze asset_metadata_numbers');
    // n > 2990: ten assets, none post-filtered; with the record type, the four of 2991, 2994,
    // 2997 and 3000. n < 301 beside datasets: the walk reads the datasets' numbers alone
    // (migration 0043), so it fetches the 100 datasets in range and not the 300 assets in
    // range, and reads at most the 1,000 datasets' entries, not the path's 3,000.
    for (const [where, count, index, entries] of [
      [{ field: 'metadata.n', op: 'gt', value: 2990 }, 10, 'asset_metadata_numbers_walk', 3_000],
      [{ and: [{ field: 'metadata.n', op: 'gte', value: 2991 }, { field: 'record_type', op: 'eq', value: 'dataset' }] }, 4, 'asset_metadata_numbers_typed_walk', 1_000],
      [{ and: [{ field: 'metadata.n', op: 'lt', value: 301 }, { field: 'record_type', op: 'eq', value: 'dataset' }] }, 100, 'asset_metadata_numbers_typed_walk', 1_000],
    ] as const) {
      const { page, statements } = await world.pageOf(where);
      expect(page.count).toBe(count);
      expect(page.postFiltered).toBe(false);
      // One walk of fifty entries a row of the page reads them all.
      expect(statements).toHaveLength(1);
      const plan = await analyzed(statements[0] as CapturedStatement);
      expect(plan).toMatch(new RegExp(`"Node Type":"Index Only Scan"[^}]*"Index Name":"${index}"`));
      expect(Math.max(...numbersRead(plan).map((r) => r.read)), JSON.stringify(where)).toBeLessThanOrEqual(entries);
      // The assets fetched by key are the walk's matches, not every asset it read.
      const fetched = [...plan.matchAll(/"Index Name":"assets_pkey"[^}]*?"Actual Rows":(\d+),"Actual Loops":(\d+)/g)].map((m) => Number(m[1]) * Number(m[2]));
      expect(Math.max(...fetched)).toBeLessThanOrEqual(Math.min(count + 1, 100));
    }
  });

  it('a range whose walk yields too little gathers its matches by value from where the walk stopped, all of them and in order, reading no number out of range', async () => {
    await world.pool.query('vacuum analyze asset_metadata_numbers');
    const ids = (json: string) => (JSON.parse(json) as { id: string }[]).map((a) => a.id);
    const inOrder = async (condition: string) => (await world.pool.query<{ id: string }>(`select id from assets where ${condition} order by created_at desc, id`)).rows.map((r) => r.id);
    // Walks of 500 entries (CAIRN_LISTING_WALK_ROWS=10). n > 2700 holds 300 numbers: the first walk (n 3000 … 2501) fills the page.
    const common = await world.pageOf({ field: 'metadata.n', op: 'gt', value: 2700 }, 10);
    expect(common.page.count).toBe(100);
    expect(common.statements).toHaveLength(1);
    // n < 40 are the 39 oldest: the walk from the newest meets none in its 500 entries, and the gather reads the 39 alone.
    const low = await world.pageOf({ field: 'metadata.n', op: 'lt', value: 40 }, 10);
    expect(ids(low.page.json)).toEqual(await inOrder(`(metadata->>'n')::int < 40`));
    expect(low.statements).toHaveLength(2);
    expect(numbersRead(await analyzed(low.statements[1] as CapturedStatement))).toEqual([{ index: 'asset_metadata_numbers_by_value', read: 39 }]);
    // Beside a record type, the type's numbers by value: the datasets of n >= 2991 are met first, and the gather after them
    // reads the four in range (all above its stop, so dropped there) and nothing else.
    const typed = await world.pageOf({ and: [{ field: 'metadata.n', op: 'gte', value: 2991 }, { field: 'record_type', op: 'eq', value: 'dataset' }] }, 10);
    expect(ids(typed.page.json)).toEqual(await inOrder(`(metadata->>'n')::int >= 2991 and record_type = 'dataset'`));
    expect(typed.statements).toHaveLength(2);
    expect(numbersRead(await analyzed(typed.statements[1] as CapturedStatement))).toEqual([{ index: 'asset_metadata_numbers_typed_by_value', read: 4 }]);
  });

  it('a gather that reads more numbers than it may fetches nothing, and the part walks on to the end without gathering again', async () => {
    await world.pool.query('vacuum analyze asset_metadata_numbers');
    const ids = (json: string) => (JSON.parse(json) as { id: string }[]).map((a) => a.id);
    // n < 100 are the 99 oldest; walks of 500 entries from the newest meet none, and a gather of at most 20 numbers reads 21.
    const { page, statements } = await world.pageOf({ field: 'metadata.n', op: 'lt', value: 100 }, 10, false, 20);
    const want = (await world.pool.query<{ id: string }>(`select id from assets where (metadata->>'n')::int < 100 order by created_at desc, id`)).rows.map((r) => r.id);
    expect(ids(page.json)).toEqual(want);
    const gathers = statements.filter((s) => s.text.includes('gathered as materialized'));
    expect(gathers).toHaveLength(1);
    expect(numbersRead(await analyzed(gathers[0] as CapturedStatement))).toEqual([{ index: 'asset_metadata_numbers_by_value', read: 21 }]);
    // Walks of 500 entries after it, to the oldest (3,000 numbers: six walks, and a seventh that finds none after the sixth's
    // stop, its 500th entry being the last), never the windows.
    expect(statements).toHaveLength(8);
    expect(statements.every((s) => s.text.includes('gathered as materialized') || s.text.includes('asset_metadata_numbers w'))).toBe(true);
  });

  it('the gather keeps its plan by value when PostgreSQL keeps a generic plan of it', async () => {
    await world.pool.query('vacuum analyze asset_metadata_numbers');
    for (const [where, index] of [
      [{ field: 'metadata.n', op: 'lt', value: 40 }, 'asset_metadata_numbers_by_value'],
      [{ and: [{ field: 'metadata.n', op: 'gte', value: 2991 }, { field: 'record_type', op: 'eq', value: 'dataset' }] }, 'asset_metadata_numbers_typed_by_value'],
    ] as const) {
      const { statements } = await world.pageOf(where, 10);
      const gather = statements.find((s) => s.text.includes('gathered as materialized'));
      if (!gather) throw new Error('no gather ran');
      const client = await world.pool.connect();
      try {
        await client.query('set plan_cache_mode = force_generic_plan');
        await client.query(`prepare kept_gather as ${gather.text}`);
        const literal = (value: unknown): string =>
          value === null ? 'null' : Array.isArray(value) ? client.escapeLiteral(`{${value.map((v) => `"${String(v)}"`).join(',')}}`) : typeof value === 'string' ? client.escapeLiteral(value) : String(value);
        const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) execute kept_gather(${gather.values.map(literal).join(', ')})`);
        const plan = JSON.stringify(rows[0]?.['QUERY PLAN']);
        expect(plan).toMatch(new RegExp(`"Node Type":"Index Only Scan"[^}]*"Index Name":"${index}"`));
        expect(numbersRead(plan).every((r) => r.index === index)).toBe(true);
      } finally {
        await client.query('deallocate kept_gather');
        await client.query('reset plan_cache_mode');
        client.release();
      }
    }
  });

  /** How many rows of `assets` the statements read (kept or dropped by a filter), by EXPLAIN ANALYZE. */
  async function assetsExamined(statements: readonly { text: string; values: unknown[] }[]) {
    let examined = 0;
    for (const statement of statements) {
      const { rows } = await world.pool.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${statement.text}`, statement.values);
      const visit = (node: Record<string, unknown>) => {
        if (node['Relation Name'] === 'assets') examined += ((node['Actual Rows'] as number) + ((node['Rows Removed by Filter'] as number | undefined) ?? 0)) * (node['Actual Loops'] as number);
        for (const child of (node['Plans'] as Record<string, unknown>[] | undefined) ?? []) visit(child);
      };
      visit((rows[0]?.['QUERY PLAN'] as { Plan: Record<string, unknown> }[])[0]?.Plan as Record<string, unknown>);
    }
    return examined;
  }

  it('a range whose walk stops before the path\'s numbers end reads on along them, not every asset below the stop', async () => {
    await world.pool.query('vacuum analyze asset_metadata_numbers');
    // A walk of 100 matches reads 1,000 entries (walkEntries): n > 2990 are the 10 newest, n < 4 the 3 oldest.
    for (const [where, count] of [
      [{ field: 'metadata.n', op: 'gt', value: 2990 }, 10],
      [{ field: 'metadata.n', op: 'lt', value: 4 }, 3],
    ] as const) {
      const { page, statements } = await world.pageOf(where, 100);
      expect(page.count).toBe(count);
      const examined = await assetsExamined(statements);
      // The assets in range, not the 2,000 older than where the walk stopped.
      expect(examined, JSON.stringify(where)).toBeLessThanOrEqual(100);
    }
  });

  it('a range beside a condition an index serves (a collection) reads that index, not every asset in range', async () => {
    const collection = '11111111-1111-4111-8111-111111111111';
    await world.pool.query(`update assets set collection_ids = array[$1::uuid] where metadata->>'n' in ('5', '1500', '2999')`, [collection]);
    // A collection the caller owns (a walk of its postings first asks whether the caller may see it: collectionGuard).
    await world.pool.query(
      `insert into collections (id, title, alias, owner_type, owner_user_id, parent_ids, owner_grants, entry_grants, created_at, updated_at)
       values ($1::uuid, 'Held', 'held', 'user', $2::uuid, '{}', jsonb_build_object('u:' || $2, 511), '{}', now(), now())`,
      [collection, world.owner],
    );
    // As the projection keeps them: the collection's postings beside the assets' ids.
    await world.pool.query(`insert into collection_assets (collection_id, asset_id, created_at, updated_at, title, creator)
      select $1::uuid, a.id, a.created_at, a.updated_at, a.title, coalesce(a.created_by, '00000000-0000-0000-0000-000000000000') from assets a where $1::uuid = any(a.collection_ids)`, [collection]);
    await world.pool.query('vacuum analyze assets');
    try {
      for (const leaf of [{ field: 'metadata.n', op: 'gt', value: 0 }, { or: [{ field: 'metadata.n', op: 'gt', value: 0 }] }]) {
        const { page, statements } = await world.pageOf({ and: [{ field: 'collection_id', op: 'eq', value: collection }, leaf] }, 100, true);
        expect(page.count).toBe(3);
        // The collection's walk (under `and`) or the post-filter (under `or`) reads the collection's 3 assets; the range's walk fetched 1,000 in range first.
        expect(await assetsExamined(statements), JSON.stringify(leaf)).toBeLessThanOrEqual(100);
        // The collection's own postings in the listing's order (migration 0039), not the GIN index of every asset's collections.
        const walk = statements.find((s) => s.text.includes('from collection_assets w where w.collection_id = '));
        if (!walk) throw new Error(`no walk of the collection for ${JSON.stringify(leaf)}`);
        const { rows } = await world.pool.query<{ 'QUERY PLAN': unknown }>(`explain (format json) ${walk.text}`, walk.values);
        expect(JSON.stringify(rows[0]?.['QUERY PLAN'])).toMatch(/"Index Name":"collection_assets_listing"/);
      }
      // Beside a record type the range may drive, but not beside a third condition: n > 2500
      // holds half the newest numbers, rarer than images (two thirds), and the collection is
      // rarer still.
      const three = await world.pageOf({ and: [{ field: 'collection_id', op: 'eq', value: collection }, { field: 'record_type', op: 'eq', value: 'image' }, { field: 'metadata.n', op: 'gt', value: 2500 }] }, 100, true);
      expect(three.page.count).toBe(1);
      expect(three.statements.some((s) => s.text.includes('asset_metadata_numbers w'))).toBe(false);
      const two = await world.pageOf({ and: [{ field: 'record_type', op: 'eq', value: 'image' }, { field: 'metadata.n', op: 'gt', value: 2500 }] }, 100, true);
      expect(two.page.postFiltered).toBe(false);
      expect(two.statements.some((s) => s.text.includes('asset_metadata_numbers w'))).toBe(true);
      // Hidden from the caller (another user's collection), it answers nothing, and its walk reads none of its postings: the time tells nothing of what it holds.
      await world.pool.query(`update collections set owner_user_id = gen_random_uuid(), owner_grants = jsonb_build_object('u:' || gen_random_uuid(), 511) where id = $1::uuid`, [collection]);
      // A change by hand writes a new version of the collections' facts, as migration 0054 asks.
      await world.pool.query('update collection_facts_version set version = gen_random_uuid()::text');
      const hidden = await world.pageOf({ and: [{ field: 'collection_id', op: 'eq', value: collection }, { field: 'metadata.n', op: 'gt', value: 0 }] }, 100, true);
      expect(hidden.page.count).toBe(0);
      const walk = hidden.statements.find((s) => s.text.includes('from collection_assets w where w.collection_id = '));
      if (!walk) throw new Error('no walk of the hidden collection');
      const { rows } = await world.pool.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${walk.text}`, walk.values);
      const postings = [...JSON.stringify(rows[0]?.['QUERY PLAN']).matchAll(/"Relation Name":"collection_assets"[^}]*?"Actual Rows":(\d+)/g)].map((m) => Number(m[1]));
      expect(postings.length).toBeGreaterThan(0);
      expect(Math.max(...postings)).toBe(0);
    } finally {
      await world.pool.query("update assets set collection_ids = '{}' where collection_ids <> '{}'");
      await world.pool.query('delete from collection_assets where collection_id = $1::uuid', [collection]);
      await world.pool.query('delete from collections where id = $1::uuid', [collection]);
    }
  });

  it('a title prefix in a query walks the index of its first lowercased characters, index-only, as the listing\'s title_prefix does', async () => {
    await world.pool.query('vacuum analyze assets');
    // 'ASSET 29' is 111 titles, 'asset 2999' one: keys of 6 and 10 characters. The key of 6
    // ('asset ') is every asset's, which the order's own index holds as well (PostgreSQL picks either).
    for (const [value, index, count] of [
      ['ASSET 29', '(assets_title_prefix_walk_6|assets_order_search)', 100],
      ['asset 2999', 'assets_title_prefix_walk_10', 1],
    ] as const) {
      const { page, statements } = await world.pageOf({ and: [{ field: 'title', op: 'prefix', value }, { field: 'record_type', op: 'ne', value: 'model' }] });
      expect(page.count).toBe(count);
      // The first walk (a short one may be followed by a longer one, or the windows).
      const statement = statements.find((s) => s.text.includes('left(w.search_text'));
      if (!statement) throw new Error(`no walk for ${value}`);
      const { rows } = await world.pool.query<{ 'QUERY PLAN': unknown }>(`explain (format json) ${statement.text}`, statement.values);
      expect(JSON.stringify(rows[0]?.['QUERY PLAN'])).toMatch(new RegExp(`"Node Type":"Index Only Scan"[^}]*"Index Name":"${index}"`));
    }
  });

  it('under not, a condition on a missing value keeps two-valued logic: not (key = x) holds where the key is absent', async () => {
    // `metadata.absent` is on no asset: `not (absent = 1)` is every asset, not none.
    const { page } = await planOf({ and: [{ field: 'tags', op: 'contains', value: 'rare' }, { not: { field: 'metadata.absent', op: 'eq', value: 1 } }] });
    expect(page.count).toBe(3);
  });
});
