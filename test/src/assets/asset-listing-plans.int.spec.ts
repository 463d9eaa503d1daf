import { assetPage, createReadDb, listConditions, listingDriver, type AssetListFilter, type PagePosition, type ReadDb } from '@cairn/projections';
import { randomUUID } from 'node:crypto';
import pgModule from 'pg';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturingPool, sortRows, type CapturedStatement } from '../support/statement-capture.ts';

/**
 * The plans of the listing's page statement on a seeded table (3,000 assets written
 * straight into the read model of this test's own database, then ANALYZE): the first
 * page of a caller who sees everything walks `assets_order` and stops after a page (no
 * Sort of the table), and a rare tag is a bitmap on `assets_tags`.
 */
describe('asset listing plans', () => {
  let pool: pg.Pool;
  let db: ReadDb;
  /** The statements the listing ran, captured from the pool's clients. */
  let captured: CapturedStatement[] = [];
  const owner = randomUUID();
  const stargazer = randomUUID();

  beforeAll(async () => {
    ({ pool, captured } = await capturingPool());
    db = createReadDb(pool);
    await pool.query(
      `insert into assets (id, title, alias, description, record_type, tags, metadata, owner_type, owner_id, owner_grants, entry_grants, created_at, updated_at)
       select gen_random_uuid(), 'Asset ' || i, 'a' || i, '', case when i % 3 = 0 then 'dataset' else 'image' end,
              case when i % 1000 = 7 then array['rare', 'tag' || (i % 10)] else array['common', 'tag' || (i % 10)] end,
              jsonb_build_object('n', i), 'user', $1::uuid, jsonb_build_object('u:' || $1, 511),
              case when i % 2 = 0 then '{"*": 1}'::jsonb else '{}'::jsonb end,
              timestamptz '2026-01-01' + i * interval '1 second', timestamptz '2026-01-01' + i * interval '1 second'
       from generate_series(1, 3000) i`,
      [owner],
    );
    await pool.query(
      `insert into asset_stars (user_id, asset_id, asset_created_at, starred_at)
       select $1::uuid, id, created_at, now() from assets where title in ('Asset 10', 'Asset 2000')`,
      [stargazer],
    );
    // The tags' rows in the listing's order, as the projection keeps them (migration 0032).
    await pool.query('insert into asset_tag_order (tag, created_at, asset_id) select distinct t, created_at, id from assets cross join unnest(tags) t');
    await pool.query('analyze assets');
    await pool.query('analyze asset_stars');
    await pool.query('analyze asset_tag_order');
  });
  afterAll(async () => pool?.end());

  /** The plan of the page statement that the listing runs for this caller and these filters. */
  async function planOf(viewer: { userId: string; isSystemAdmin: boolean }, filter: Partial<AssetListFilter>, after: PagePosition | null = null) {
    captured.length = 0;
    const page = await assetPage(db, {
      viewer,
      conditions: { where: listConditions({ metadata: [], recordTypes: [], tags: [], titles: [], ...filter }, viewer.isSystemAdmin) },
      after,
      limit: 100,
      deniedProjects: [],
      scanCap: 10_000,
    });
    // The last page statement: a bounded walk may come back short and run again, and a filtered page reads window by window.
    const statement = captured.findLast((c) => c.text.includes(' as phase,'));
    if (!statement) throw new Error('the page statement was not captured');
    const { rows } = await pool.query<{ 'QUERY PLAN': unknown }>(`explain (format json) ${statement.text}`, statement.values);
    return { page, plan: JSON.stringify(rows[0]?.['QUERY PLAN']) };
  }


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

  type PlanNode = { 'Node Type': string; 'Relation Name'?: string; Alias?: string; 'Actual Rows': number; 'Actual Loops': number; Plans?: PlanNode[] };

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

  it('the last page of an unfiltered walk ends with the order: no unbounded statement follows the walk', async () => {
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

  /** A page along the filter's driver (order-drivers.ts), and the statements it ran. */
  async function drivenPage(viewer: { userId: string; isSystemAdmin: boolean }, filter: Partial<AssetListFilter>, options: { after?: PagePosition | null; walkRows?: number; windowRows?: number; driven?: boolean } = {}) {
    const full = { metadata: [], recordTypes: [], tags: [], titles: [], ...filter };
    captured.length = 0;
    const page = await assetPage(db, {
      viewer,
      conditions: { where: listConditions(full, viewer.isSystemAdmin), driver: options.driven === false ? undefined : listingDriver(full) },
      after: options.after ?? null,
      limit: 100,
      deniedProjects: [],
      scanCap: 10_000,
      // Not driven: the windows alone, no walk at all.
      walkRows: options.driven === false ? 0 : options.walkRows,
      windowRows: options.windowRows,
    });
    return { page, statements: captured.filter((c) => c.text.includes(' as phase,')) };
  }
  /**
   * Three pages of `filter` for the stargazer and the owner, walked 400 rows at a time and
   * read by windows alone: the two must be the same pages. `check` sees each walked page.
   */
  async function walkedPagesAsWindowed(filter: Partial<AssetListFilter>, check: (walked: Awaited<ReturnType<typeof drivenPage>>, n: number) => Promise<void>) {
    for (const viewer of [
      { userId: stargazer, isSystemAdmin: false },
      { userId: owner, isSystemAdmin: false },
    ]) {
      let after: PagePosition | null = null;
      for (let n = 0; n < 3; n += 1) {
        const driven = await drivenPage(viewer, filter, { after, walkRows: 400 });
        const windowed = await drivenPage(viewer, filter, { after, driven: false });
        expect(driven.page.json, JSON.stringify({ filter, n })).toBe(windowed.page.json);
        expect(driven.page.next).toEqual(windowed.page.next);
        await check(driven, n);
        if (!driven.page.next) break;
        after = driven.page.next;
      }
    }
  }


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

  it('a filter no index holds in the order walks the order, or the caller\'s stars in the starred part: a common one fills its pages from the walk, a sparser one from a second walk its yield sizes, a rare one hands over to the windows, and pages as the windows make them', async () => {
    // A caller who sees the public (even) assets and starred 300 of them (every tenth):
    // too many to check at once for windows of 300 (starsAtOnce), so the starred part walks them.
    const fan = randomUUID();
    await pool.query(`insert into asset_stars (user_id, asset_id, asset_created_at, starred_at) select $1::uuid, id, created_at, now() from assets where (metadata->>'n')::int % 10 = 0`, [fan]);
    await pool.query('analyze asset_stars');
    const viewer = { userId: fan, isSystemAdmin: false };
    const windowStatement = (text: string) => text.includes("interval '0 seconds'");
    try {
      // Every asset holds the key `n`: pages 1–3 are the 300 stars, then the other public assets.
      let after: PagePosition | null = null;
      for (let n = 0; n < 5; n += 1) {
        const walked = await drivenPage(viewer, { metadata: ['n'] }, { after, windowRows: 300 });
        const windowed = await drivenPage(viewer, { metadata: ['n'] }, { after, driven: false, windowRows: 300 });
        expect(walked.page.json, `page ${n + 1}`).toBe(windowed.page.json);
        expect(walked.page.next).toEqual(windowed.page.next);
        expect(walked.page.count).toBe(100);
        expect(walked.statements.some((st) => windowStatement(st.text)), `page ${n + 1}`).toBe(false);
        const walks = walked.statements.map((st) => (/from asset_stars w/.test(st.text) ? 'stars' : /from assets w/.test(st.text) ? 'order' : 'other'));
        // Page 4 starts after the last star: its stars' walk finds none left, then the order's walk fills it.
        if (n < 3) expect(walks[0], `page ${n + 1}`).toBe('stars');
        else expect(walks, `page ${n + 1}`).toContain('order');
        after = walked.page.next;
      }
      // Every tenth asset's title, for a caller who sees the public (even) ones: a walk meets
      // one asset in ten, so the next reads what that yield needs (about 1,000) and fills the page.
      const tenth = { titles: Array.from({ length: 300 }, (_, k) => `Asset ${10 * (k + 1)}`) };
      const reader = { userId: randomUUID(), isSystemAdmin: false };
      const sparse = await drivenPage(reader, tenth, { windowRows: 300 });
      const sparseWindowed = await drivenPage(reader, tenth, { driven: false, windowRows: 300 });
      expect(sparse.page.json).toBe(sparseWindowed.page.json);
      expect(sparse.page.count).toBe(100);
      expect(sparse.statements.filter((st) => /from assets w/.test(st.text)).length).toBeGreaterThanOrEqual(2);
      // The reader has no star: its starred part is one statement over its stars (a window of them all); the rest walks.
      expect(sparse.statements.slice(1).some((st) => windowStatement(st.text))).toBe(false);
      // Two titles (no ordered index): a walk of 200 meets one at most, and the windows read the rest.
      const rare = { titles: ['Asset 1000', 'Asset 2002'] };
      const walked = await drivenPage(viewer, rare, { windowRows: 300 });
      const windowed = await drivenPage(viewer, rare, { driven: false, windowRows: 300 });
      expect(walked.page.json).toBe(windowed.page.json);
      expect(walked.page.count).toBe(2);
      expect(walked.statements.some((st) => /from asset_stars w/.test(st.text))).toBe(true);
      expect(walked.statements.some((st) => /from assets w/.test(st.text))).toBe(true);
      expect(walked.statements.some((st) => windowStatement(st.text))).toBe(true);
      // Each walk fetches at most its 202 entries' assets.
      for (const statement of walked.statements.filter((st) => !windowStatement(st.text))) {
        const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (analyze, format json) ${statement.text}`, statement.values);
        const plan = rows[0]?.['QUERY PLAN'][0].Plan;
        if (!plan) throw new Error('no plan');
        expect(assetRowsRead(plan)).toBeLessThanOrEqual(202);
      }
    } finally {
      await pool.query('delete from asset_stars where user_id = $1::uuid', [fan]);
      await pool.query('analyze asset_stars');
    }
  });

  /** The assets the plan fetched (its nodes on `assets` as `a`, not the walk's entries), over all their loops. */
  const assetRowsRead = (node: PlanNode): number => (node['Relation Name'] === 'assets' && /^a(_\d+)?$/.test(node.Alias ?? '') ? node['Actual Rows'] * node['Actual Loops'] : 0) + (node.Plans ?? []).reduce((sum, child) => sum + assetRowsRead(child), 0);

  it('the starred part of q walks the caller\'s stars, the text checked on each star\'s entry, fetching only the matches, and pages as the windows make them', async () => {
    // 300 stars, every tenth asset, each with its asset's text (migration 0040).
    const fan = randomUUID();
    const superfan = randomUUID();
    await pool.query(
      `insert into asset_stars (user_id, asset_id, asset_created_at, starred_at, search_text) select $1::uuid, id, created_at, now(), search_text from assets where (metadata->>'n')::int % 10 = 0`,
      [fan],
    );
    await pool.query('vacuum analyze asset_stars');
    const viewer = { userId: fan, isSystemAdmin: false };
    try {
      let after: PagePosition | null = null;
      for (let n = 0; n < 2; n += 1) {
        const walked = await drivenPage(viewer, { q: '5' }, { after, windowRows: 300 });
        const windowed = await drivenPage(viewer, { q: '5' }, { after, driven: false, windowRows: 300 });
        expect(walked.page.json, `page ${n + 1}`).toBe(windowed.page.json);
        expect(walked.page.next).toEqual(windowed.page.next);
        // Page 1 holds the part's every starred match (about 90); page 2 is the rest's.
        after = walked.page.next;
        if (n === 1) continue;
        const walk = walked.statements.find((st) => /from asset_stars w/.test(st.text));
        if (!walk) throw new Error('no walk of the stars');
        const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (analyze, format json) ${walk.text}`, walk.values);
        const plan = rows[0]?.['QUERY PLAN'][0].Plan;
        if (!plan) throw new Error('no plan');
        // Only stars whose text holds '5' are fetched: the public ones among them are the page's starred rows.
        const matches = Number((await pool.query<{ n: string }>(`select count(*) as n from asset_stars where user_id = $1 and search_text like '%5%'`, [fan])).rows[0]?.n);
        expect(assetRowsRead(plan)).toBeLessThanOrEqual(matches);
        expect(assetRowsRead(plan)).toBeGreaterThan(0);
      }
      // A caller who starred every asset: '99' is in about 14 of the 505 public ones among the
      // first 1,010 stars walked, so the next walk, sized by that yield (about 6,600 stars,
      // within fifty times the walk's bound), reads the rest; no window reads the starred part.
      await pool.query(`insert into asset_stars (user_id, asset_id, asset_created_at, starred_at, search_text) select $1::uuid, id, created_at, now(), search_text from assets`, [superfan]);
      await pool.query('vacuum analyze asset_stars');
      const all = { userId: superfan, isSystemAdmin: false };
      const walkedOn = await drivenPage(all, { q: '99' }, { windowRows: 300 });
      const windowed = await drivenPage(all, { q: '99' }, { driven: false, windowRows: 300 });
      expect(walkedOn.page.json).toBe(windowed.page.json);
      expect(walkedOn.statements.filter((st) => /from asset_stars w/.test(st.text)).length).toBeGreaterThanOrEqual(2);
      expect(walkedOn.statements.some((st) => st.text.includes("interval '0 seconds'") && st.text.includes('join asset_stars s on s.user_id'))).toBe(false);
    } finally {
      await pool.query('delete from asset_stars where user_id = any($1::uuid[])', [[fan, superfan]]);
      await pool.query('analyze asset_stars');
    }
  });

  it('two tags walk the rarer one\'s entries, at most the walk\'s, joined to the other\'s postings between the cursor and the walk\'s last entry; a short walk\'s stop reads those entries again without the join, and pages as the windows make them', async () => {
    // tag4 (300 assets, all public) is walked, common joined (merged, hashed or probed, as
    // PostgreSQL's statistics choose, but never past the walk's entries); walks of 10
    // matches read 40 entries of tag4: every page hands over to the windows.
    const viewer = { userId: stargazer, isSystemAdmin: false };
    let after: PagePosition | null = null;
    let pages = 0;
    do {
      const short = await drivenPage(viewer, { tags: ['common', 'tag4'] }, { after, walkRows: 10, windowRows: 300 });
      const windowed = await drivenPage(viewer, { tags: ['common', 'tag4'] }, { after, driven: false });
      expect(short.page.json).toBe(windowed.page.json);
      expect(short.page.next).toEqual(windowed.page.next);
      const walk = short.statements.find((s) => s.text.includes('w.tag = '));
      if (!walk) throw new Error('no walk of tag4');
      // One join of common's postings, in the walk; the stop counts entries, not matches.
      expect(walk.text.match(/from asset_tag_order o\s+where/g)).toHaveLength(1);
      expect(walk.values).toContain('tag4');
      after = short.page.next;
      pages += 1;
      // The first page's plan (on 3,000 rows PostgreSQL may read a cursor's remainder by a bitmap and sort it).
      if (pages > 1) continue;
      const { rows } = await pool.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${walk.text}`, walk.values);
      // Each read of tag4's entries (the walk's, and the stop's when the page is short) reads at most 40.
      const reads = [...JSON.stringify(rows[0]?.['QUERY PLAN']).matchAll(/"Index Name":"asset_tag_order_walk"[^}]*?"Alias":"w[^"]*"[^}]*?"Actual Rows":(\d+)/g)].map((m) => Number(m[1]));
      expect(reads.length).toBeGreaterThan(0);
      expect(Math.max(...reads)).toBeLessThanOrEqual(40);
      // common's postings are read between the cursor and where the walk's 40 entries end (about 400 assets), or probed 40 times: never all 2,997.
      const other = [...JSON.stringify(rows[0]?.['QUERY PLAN']).matchAll(/"Relation Name":"asset_tag_order","Alias":"o"[^}]*?"Actual Rows":(\d+),"Actual Loops":(\d+)/g)].map((m) => Number(m[1]) * Number(m[2]));
      expect(other.length).toBeGreaterThan(0);
      expect(other.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(500);
    } while (after !== null);
    // 300 assets hold tag4 and common: three pages of 100.
    expect(pages).toBe(3);
  });

  it('a title prefix walks the index of its first lowercased characters and q the order with its text, both index-only, no node reading more than the walk, and pages as the windows make them', async () => {
    // 'ASSET 1' fills the key of 6 ('asset ', every asset) and matches 1,111 titles, the
    // newest of them past the first 1,000 entries; '2' is in 1,700 titles or aliases.
    const cases: [Partial<AssetListFilter>, string][] = [
      [{ titlePrefix: 'ASSET 1' }, 'assets_title_prefix_walk_6'],
      [{ titlePrefix: 'Asset 2' }, 'assets_title_prefix_walk_6'],
      [{ titlePrefix: 'Asset 2999' }, 'assets_title_prefix_walk_10'],
      [{ titlePrefix: 'ass' }, 'assets_title_prefix_walk_3'],
      [{ q: '2' }, 'assets_order_search'],
      [{ q: 'SET 1' }, 'assets_order_search'],
    ];
    // Index-only walks need the visibility map, which a vacuum sets (as on the benchmark's table).
    await pool.query('vacuum analyze assets');
    // The walk's statement, by the text it reads.
    const isWalk = (text: string) => /left\(lower\(w\.title\), \d+\)|w\.search_text from assets w/.test(text);
    for (const [filter, index] of cases) {
      await walkedPagesAsWindowed(filter, async (driven, n) => {
        const walk = driven.statements.find((s) => isWalk(s.text));
        if (!walk) throw new Error(`no walk: ${JSON.stringify(filter)}`);
        if (n !== 0) return;
        const { rows } = await pool.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${walk.text}`, walk.values);
        const plan = JSON.stringify(rows[0]?.['QUERY PLAN']);
        expect(plan, JSON.stringify(filter)).toMatch(new RegExp(`"Node Type":"Index Only Scan"[^}]*"Index Name":"${index}"`));
        // A text walk reads at most four times the walk's 400 entries, where gathering the matches would read the table's 3,000.
        const read = [...plan.matchAll(/"Actual Rows":(\d+)/g)].map((m) => Number(m[1]));
        expect(Math.max(...read)).toBeLessThanOrEqual(1_600);
      });
    }
  });

  it('a text walk first reads ten entries a row it needs (1,010 for a page of 100), and a rare text hands over to the windows after them rather than after its whole cap', async () => {
    await pool.query('vacuum analyze assets');
    // '999' is in 6 titles or aliases of 3,000; 'asset 1' starts 1,111 titles, none among the 999 newest.
    for (const filter of [{ q: '999' }, { titlePrefix: 'asset 1' }]) {
      const viewer = { userId: owner, isSystemAdmin: false };
      const walked = await drivenPage(viewer, filter);
      const windowed = await drivenPage(viewer, filter, { driven: false });
      expect(walked.page.json, JSON.stringify(filter)).toBe(windowed.page.json);
      const isWalk = (text: string) => /left\(lower\(w\.title\), \d+\)|w\.search_text from assets w/.test(text);
      const walk = walked.statements.find((st) => isWalk(st.text));
      if (!walk) throw new Error(`no walk: ${JSON.stringify(filter)}`);
      const { rows } = await pool.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${walk.text}`, walk.values);
      const read = [...JSON.stringify(rows[0]?.['QUERY PLAN']).matchAll(/"Actual Rows":(\d+)/g)].map((m) => Number(m[1]));
      expect(Math.max(...read), JSON.stringify(filter)).toBe(1_010);
      // The windows read the rest: here one window, to the end of the order.
      const last = walked.statements.at(-1);
      expect(last !== walk && last !== undefined && !isWalk(last.text), JSON.stringify(filter)).toBe(true);
    }
  });

  it('a rare title prefix or q hands over to the windows from the last entry its walk read, and pages as the windows make them', async () => {
    // 'asset 99' is 11 titles of the key 'asset '; '999' 6 titles or aliases: walks of 40 entries meet few of them.
    for (const [filter, walk] of [
      [{ titlePrefix: 'asset 99' }, 'left(lower(w.title), 6)'],
      [{ q: '999' }, 'w.search_text from assets w'],
    ] as const) {
      for (const viewer of [
        { userId: stargazer, isSystemAdmin: false },
        { userId: owner, isSystemAdmin: false },
        { userId: randomUUID(), isSystemAdmin: false },
      ]) {
        let after: PagePosition | null = null;
        let pages = 0;
        do {
          const short = await drivenPage(viewer, filter, { after, walkRows: 10, windowRows: 300 });
          const windowed = await drivenPage(viewer, filter, { after, driven: false });
          expect(short.page.json, JSON.stringify({ filter, pages })).toBe(windowed.page.json);
          expect(short.page.next).toEqual(windowed.page.next);
          expect(short.statements.some((s) => s.text.includes(walk))).toBe(true);
          // A window (its order hidden from the index): sized from the walk's yield, here to the order's end.
          const windows = short.statements.filter((s) => s.text.includes("interval '0 seconds'"));
          expect(windows.length).toBeGreaterThan(0);
          // For q, one window for the rest (and one of the starred part's few stars), where windows of 300 took up to ten (windowAfterWalk).
          if ('q' in filter) expect(windows.length, JSON.stringify({ filter, pages })).toBeLessThanOrEqual(2);
          after = short.page.next;
          pages += 1;
        } while (after !== null);
        expect(pages).toBe(1);
      }
    }
  });
});
