import { assetPage, listConditions, type AssetListFilter, type PagePosition, type ReadDb } from '@cairn/projections';
import { randomUUID } from 'node:crypto';
import pgModule from 'pg';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sortRows, type CapturedStatement } from '../support/statement-capture.ts';
import { planWorld, type PlanNode, type PlanWorld } from './asset-plan-fixtures.ts';

/**
 * The plans of the listing's page statement on a seeded table (asset-plan-fixtures.ts):
 * the first page of a caller who sees everything walks `assets_order` and stops after a
 * page (no Sort of the table), a filtered page reads window by window, a rare tag is a
 * bitmap on `assets_tags`, and a tag, an owner or a record type walks its own index.
 * Walks of filters with no ordered index, of stars, of two tags and of text: asset-walk-plans.
 */
describe('asset listing plans', () => {
  let pool: pg.Pool;
  let db: ReadDb;
  let captured: CapturedStatement[];
  let owner: string;
  let stargazer: string;
  let planOf: PlanWorld['planOf'];
  let drivenPage: PlanWorld['drivenPage'];
  let walkedPagesAsWindowed: PlanWorld['walkedPagesAsWindowed'];

  beforeAll(async () => {
    ({ pool, db, captured, owner, stargazer, planOf, drivenPage, walkedPagesAsWindowed } = await planWorld());
  });
  afterAll(async () => pool?.end());

  it('the first page of a caller who sees everything walks assets_order, with no Sort of the table', async () => {
    for (const viewer of [
      { userId: randomUUID(), isSystemAdmin: true },
      { userId: stargazer, isSystemAdmin: true },
    ]) {
      const { page, plan } = await planOf(viewer, {});
      expect(page.count).toBe(100);
      expect(page.hasMore).toBe(true);
      expect(plan).toMatch(/"Index Name":"assets_order"/);
      expect(sortRows(plan).filter((rows) => rows > 200)).toEqual([]);
      // And deeper: the next page from the cursor is the same walk.
      const deeper = await planOf(viewer, {}, page.next);
      expect(deeper.plan).toMatch(/"Index Name":"assets_order"/);
      expect(sortRows(deeper.plan).filter((rows) => rows > 200)).toEqual([]);
    }
  });


  it('an unfiltered walk keeps one plan per connection, and that plan probes the stars by key instead of gathering them', async () => {
    // A caller who starred half of the assets (stars are many for some callers: 100,000 in the benchmark).
    const viewer = { userId: randomUUID(), isSystemAdmin: false };
    await pool.query(
      `insert into asset_stars (user_id, asset_id, asset_created_at, starred_at) select $1::uuid, id, created_at, now() from assets where random() < 0.5`,
      [viewer.userId],
    );
    await pool.query('analyze asset_stars');
    const first = await planOf(viewer, {});
    const deeper = await planOf(viewer, {}, first.page.next);
    {
      // The bounded walk, tried first (an unbounded statement, planned for its values, follows when it comes back short).
      const walk = captured.find((c) => c.text.includes(' as phase,'));
      if (!walk) throw new Error('the walk was not captured');
      expect(walk.text.startsWith('/* cairn:prepared */')).toBe(true);
      // The plan PostgreSQL keeps is the generic one: no values known, no limit known. Asked
      // on a connection of its own, so that the pool's named statements stay as they are.
      const client = new pgModule.Client({ connectionString: pool.options.connectionString });
      await client.connect();
      try {
        await client.query('set plan_cache_mode = force_generic_plan');
        await client.query(`prepare kept_walk as ${walk.text}`);
        const literal = (value: unknown): string =>
          value === null ? 'null' : Array.isArray(value) ? client.escapeLiteral(`{${value.map((v) => `"${String(v)}"`).join(',')}}`) : typeof value === 'string' ? client.escapeLiteral(value) : String(value);
        const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(`explain (format json) execute kept_walk(${walk.values.map(literal).join(', ')})`);
        const plan = JSON.stringify(rows[0]?.['QUERY PLAN']);
        expect(plan).toMatch(/"Index Name":"assets_order"/);
        expect(plan).not.toMatch(/Anti Join/);
        // The caller's stars are never gathered (a Materialize or Hash over them), nor joined: a key probe per row.
        const gathered = (node: PlanNode, under: boolean): boolean =>
          (under && node['Relation Name'] === 'asset_stars') || (node.Plans ?? []).some((child) => gathered(child, under || node['Node Type'] === 'Materialize' || node['Node Type'] === 'Hash'));
        expect(gathered((rows[0]?.['QUERY PLAN'] as { Plan: PlanNode }[])[0]?.Plan as PlanNode, false)).toBe(false);
      } finally {
        await client.end();
      }
    }
    expect(deeper.page.count).toBe(100);
    await pool.query('delete from asset_stars where user_id = $1::uuid', [viewer.userId]);
    await pool.query('analyze asset_stars');
  });

  it('the last page of an unfiltered walk ends with the order: no unbounded statement follows the walk, nor one asking where the order ends', async () => {
    const viewer = { userId: randomUUID(), isSystemAdmin: false };
    const visible = Number((await pool.query<{ n: string }>(`select count(*) as n from assets where '*' = any(readers)`)).rows[0]?.n);
    expect(visible).toBeGreaterThan(100);
    // The cursor of the asset 50 places before the end of what this caller sees: the next page is the last, and short.
    const { rows } = await pool.query<{ created_at: string; id: string }>(
      `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at, id::text from assets where '*' = any(readers)
       order by created_at desc, id offset $1 limit 1`,
      [visible - 51],
    );
    const cursor = rows[0];
    if (!cursor) throw new Error('no cursor row');
    captured.length = 0;
    const page = await assetPage(db, {
      viewer,
      conditions: { where: [] },
      after: { phase: 'rest', createdAt: cursor.created_at, id: cursor.id },
      limit: 100,
      deniedProjects: [],
      scanCap: 10_000,
    });
    expect(page.count).toBe(50);
    expect(page.hasMore).toBe(false);
    const pageStatements = captured.filter((c) => c.text.includes(' as phase,'));
    expect(pageStatements).toHaveLength(1);
    // Nor any statement asking whether the order ended: the walk's own statement says so.
    expect(captured.filter((c) => /\bassets\b/.test(c.text))).toHaveLength(1);
    // 2,100 private assets newer than all the others: a caller who sees only the public ones
    // meets none in the walk's 2,020 entries, which says the order goes on, and the
    // unbounded statement finds the public ones below.
    const stranger = randomUUID();
    await pool.query(
      `insert into assets (id, title, alias, description, record_type, tags, metadata, owner_type, owner_id, owner_grants, entry_grants, created_at, updated_at)
       select gen_random_uuid(), 'Private ' || i, 'p' || i, '', 'image', '{}', '{}', 'user', $1::uuid, jsonb_build_object('u:' || $1, 511), '{}',
              timestamptz '2027-01-01' + i * interval '1 second', timestamptz '2027-01-01' + i * interval '1 second'
       from generate_series(1, 2100) i`,
      [stranger],
    );
    try {
      captured.length = 0;
      const past = await assetPage(db, { viewer, conditions: { where: [] }, after: null, limit: 100, deniedProjects: [], scanCap: 10_000 });
      expect(past.count).toBe(100);
      expect(JSON.parse(past.json).every((a: { title: string }) => a.title.startsWith('Asset '))).toBe(true);
      expect(captured.filter((c) => c.text.includes(' as phase,'))).toHaveLength(2);
    } finally {
      await pool.query('delete from assets where owner_id = $1::uuid', [stranger]);
      // Their index entries would otherwise stay in the order's windows for the tests after this one.
      await pool.query('vacuum assets');
    }
  });

  it('a filtered page reads the order window by window: each statement examines one window, and the page is the same', async () => {
    const filter = { metadata: [], recordTypes: [], tags: ['tag4'], titles: [] };
    const pageOf = async (windowRows: number) => {
      captured.length = 0;
      const page = await assetPage(db, { viewer: { userId: stargazer, isSystemAdmin: false }, conditions: { where: listConditions(filter, false) }, after: null, limit: 100, deniedProjects: [], scanCap: 10_000, windowRows, walkRows: 0 });
      return { page, statements: captured.filter((c) => c.text.includes(' as phase,')) };
    };
    // 300 of the 3,000 assets hold tag4, all of them public: windows of 300 assets hold about 30 each.
    const windowed = await pageOf(300);
    const whole = await pageOf(1_000_000);
    expect(windowed.page.json).toBe(whole.page.json);
    expect(windowed.page.count).toBe(100);
    expect(windowed.statements.length).toBeGreaterThan(2);
    expect(whole.statements.length).toBe(2);
    // The caller's two stars are checked at once; then the rest, window by window.
    const windows = windowed.statements.filter((statement) => /created_at >= \$\d+::timestamptz/.test(statement.text));
    expect(windows.length).toBeGreaterThan(1);
    for (const statement of windows) {
      const { rows } = await pool.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${statement.text}`, statement.values);
      const plan = JSON.stringify(rows[0]?.['QUERY PLAN']);
      // No node reads more than about a window: the second is sized to twice what the
      // page still needs at the first's density (about 1,400 assets here), never the table's 3,000.
      const read = [...plan.matchAll(/"Actual Rows":(\d+)/g)].map((m) => Number(m[1]));
      expect(Math.max(...read)).toBeLessThan(2_000);
    }
  });

  it('a rare tag is a bitmap on assets_tags', async () => {
    for (const viewer of [
      { userId: owner, isSystemAdmin: false },
      { userId: randomUUID(), isSystemAdmin: true },
    ]) {
      const { page, plan } = await planOf(viewer, { tags: ['rare'] });
      expect(page.count).toBe(3);
      expect(plan).toMatch(/"Node Type":"Bitmap Index Scan"[^}]*"Index Name":"assets_tags"/);
    }
  });



  it('a tag, an owner or a record type walks its own index in the listing\'s order, no node reading more than the walk, and pages as the windows make them', async () => {
    // Drivers of 3,000, 2,997 and 1,000 rows; and tag4's 300, walked first of the two.
    const cases: [Partial<AssetListFilter>, RegExp, boolean][] = [
      // One owner holds every asset: the order's own index serves as well as the owner's.
      [{ ownerId: owner }, /"Index Name":"assets_(owner|order)"/, true],
      [{ tags: ['common'] }, /"Index Name":"asset_tag_order_walk"/, true],
      // A third of the assets are datasets: the order's index, filtered, is as good a walk.
      [{ recordTypes: ['dataset'] }, /"Index Name":"assets_(record_type|order)"/, true],
      [{ tags: ['common', 'tag4'] }, /"Index Name":"asset_tag_order_walk"/, false],
    ];
    // Walks of 400: enough for a page of the stargazer, who sees half of the assets.
    for (const [filter, index, large] of cases) {
      await walkedPagesAsWindowed(filter, async (driven, n) => {
        // The first page's walk (on 3,000 rows PostgreSQL may prefer to read a cursor's
        // remainder whole; at 1,000,000 assets the bench's EXPLAIN shows the walk).
        if (n !== 0 || !large) return;
        const statement = driven.statements.at(-1);
        if (!statement) throw new Error('no page statement');
        const { rows } = await pool.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${statement.text}`, statement.values);
        const plan = JSON.stringify(rows[0]?.['QUERY PLAN']);
        expect(plan).toMatch(index);
        // It reads at most the walk's 400 rows of the driver, where gathering its matches would read 1,000-3,000.
        const read = [...plan.matchAll(/"Actual Rows":(\d+)/g)].map((m) => Number(m[1]));
        expect(Math.max(...read)).toBeLessThanOrEqual(400);
      });
    }
  });

  it('a walk that stops before its driver ends leaves the rest of the part to the windows, from where it stopped', async () => {
    // A caller who sees the public (even) assets only walks ten rows of `common` at a time:
    // about five visible ones each, so every page needs the windows after its walk.
    const viewer = { userId: randomUUID(), isSystemAdmin: false };
    let after: PagePosition | null = null;
    let pages = 0;
    do {
      const short = await drivenPage(viewer, { tags: ['common'] }, { after, walkRows: 10, windowRows: 300 });
      const windowed = await drivenPage(viewer, { tags: ['common'] }, { after, driven: false });
      expect(short.page.json).toBe(windowed.page.json);
      expect(short.page.next).toEqual(windowed.page.next);
      if (pages === 0) {
        expect(short.statements.some((s) => /asset_tag_order/.test(s.text))).toBe(true);
        expect(short.statements.some((s) => /created_at >= \$\d+::timestamptz/.test(s.text))).toBe(true);
      }
      after = short.page.next;
      pages += 1;
    } while (after !== null);
    // 2,997 assets hold `common`, 1,500 of them public: fifteen pages of 100.
    expect(pages).toBe(15);
  });

  it("a wide window finds the filter's matches through the filter's own index, its bounds hidden from the order's", async () => {
    // `asset 7` is 111 of the 3,000 titles, none among the newest 1,200: the walk of four
    // entries meets none, the first window (about 1,200 assets, sized from the walk's yield)
    // none, and the next reaches the end of the order, about 1,800 assets below (a wide
    // window when 1,500 are: isWideWindow).
    const viewer = { userId: owner, isSystemAdmin: false };
    const walked = await drivenPage(viewer, { titlePrefix: 'Asset 7' }, { walkRows: 1, windowRows: 300, wideWindowRows: 1_500 });
    const windowed = await drivenPage(viewer, { titlePrefix: 'Asset 7' }, { driven: false });
    expect(walked.page.json).toBe(windowed.page.json);
    expect(walked.page.next).toEqual(windowed.page.next);
    expect(walked.page.count).toBe(100);
    const [walk, narrow, wide, ...more] = walked.statements;
    expect(walk?.text).toMatch(/assets_title_prefix_walk|left\(w\.search_text/);
    expect(more).toEqual([]);
    const planOfStatement = async (statement: typeof walk) => {
      if (!statement) throw new Error('a statement is missing');
      const { rows } = await pool.query<{ 'QUERY PLAN': unknown }>(`explain (format json) ${statement.text}`, statement.values);
      return JSON.stringify(rows[0]?.['QUERY PLAN']);
    };
    // The narrow window's bounds are the order's own, for its index to cut the filter's matches to the window.
    expect(narrow?.text).toMatch(/a\.created_at >= \$\d+::timestamptz/);
    expect(wide?.text).not.toMatch(/a\.created_at (<=|>=)/);
    expect(wide?.text).toMatch(/\(a\.created_at \+ interval '0 seconds'\) <= \$\d+::timestamptz/);
    const plan = await planOfStatement(wide);
    expect(plan).not.toMatch(/"Index Name":"assets_order"/);
    expect(plan).toMatch(/"Index Name":"assets_title_prefix"/);
  });

  it('a walk that met at least half of what its page needs walks on along its driver, without the windows', async () => {
    // A caller who sees the public (even) assets meets about 60 in a walk of 120 matches of
    // `common`: more than half a page of 100, so the next walk fills it.
    const viewer = { userId: randomUUID(), isSystemAdmin: false };
    let after: PagePosition | null = null;
    for (let n = 0; n < 3; n += 1) {
      const walked = await drivenPage(viewer, { tags: ['common'] }, { after, walkRows: 120, windowRows: 300 });
      const windowed = await drivenPage(viewer, { tags: ['common'] }, { after, driven: false });
      expect(walked.page.json).toBe(windowed.page.json);
      expect(walked.page.next).toEqual(windowed.page.next);
      expect(walked.statements.filter((s) => /asset_tag_order/.test(s.text)).length).toBeGreaterThanOrEqual(2);
      expect(walked.statements.some((s) => /created_at >= \$\d+::timestamptz/.test(s.text))).toBe(false);
      after = walked.page.next;
    }
  });

});
