import type { AssetListFilter, PagePosition } from '@cairn/projections';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetRowsRead, planWorld, type PlanNode, type PlanWorld } from './asset-plan-fixtures.ts';

/**
 * The plans of the listing's walks (walk-sizes.ts, order-drivers.ts) on the seeded table of
 * asset-plan-fixtures.ts: filters with no ordered index walk the order or the caller's
 * stars, a tag beside record types checks them on its entries, a second tag is joined
 * within the walk's span, and text walks read a tenth of their cap first; every page the
 * windows' own. The starred part's walks are in asset-star-walk-plans.int.spec.ts.
 */
describe('asset listing plans: walks with no ordered index, tags and text', () => {
  let pool: pg.Pool;
  let owner: string;
  let stargazer: string;
  let drivenPage: PlanWorld['drivenPage'];
  let walkedPagesAsWindowed: PlanWorld['walkedPagesAsWindowed'];

  beforeAll(async () => {
    ({ pool, owner, stargazer, drivenPage, walkedPagesAsWindowed } = await planWorld());
  });
  afterAll(async () => pool?.end());

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

  it("a tag beside record types checks the types on its postings' entries (migration 0042), fetching only the assets of a type, and pages as the windows make them", async () => {
    // tag4: 300 assets, every tenth from 4; a third of them datasets (100), two thirds images.
    const viewers = [
      { userId: owner, isSystemAdmin: false },
      { userId: stargazer, isSystemAdmin: false },
    ];
    for (const viewer of viewers) {
      for (const filter of [{ tags: ['tag4'], recordTypes: ['dataset'] }, { tags: ['tag4'], recordTypes: ['dataset', 'document'] }, { tags: ['common', 'tag4'], recordTypes: ['dataset'] }]) {
        let after: PagePosition | null = null;
        for (let n = 0; n < 2; n += 1) {
          const walked = await drivenPage(viewer, filter, { after, windowRows: 300 });
          const windowed = await drivenPage(viewer, filter, { after, driven: false, windowRows: 300 });
          const label = JSON.stringify({ viewer: viewer.userId === owner ? 'owner' : 'public', filter, page: n + 1 });
          expect(walked.page.json, label).toBe(windowed.page.json);
          expect(walked.page.next, label).toEqual(windowed.page.next);
          const walk = walked.statements.find((st) => st.text.includes('w.tag = ') && /w\.record_type(, w\.tag_hashes)? from asset_tag_order w/.test(st.text));
          // The stargazer's two stars are read whole in the same statement, each fetched.
          const stars = viewer.userId === stargazer ? 2 : 0;
          if (!walk) throw new Error(`no typed walk: ${label}`);
          expect(walk.values).toContainEqual(filter.recordTypes);
          if (n === 0) {
            const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (analyze, format json) ${walk.text}`, walk.values);
            const plan = rows[0]?.['QUERY PLAN'][0].Plan;
            if (!plan) throw new Error('no plan');
            // The type is checked on the walk's entries, below the fetch of any asset.
            expect(JSON.stringify(plan), label).toMatch(/"Filter":"\(+e\.record_type = ANY \(/);
            // Only tag4's datasets are fetched (100), not its 300 assets.
            expect(assetRowsRead(plan), label).toBeGreaterThan(0);
            expect(assetRowsRead(plan), label).toBeLessThanOrEqual(100 + stars);
          }
          after = walked.page.next;
          if (!after) break;
        }
      }
    }
  });

  it("two tags walk the rarer one's entries, the other checked hashed on each entry (migration 0049), never its postings, at most the walk's entries read, and page as the windows make them", async () => {
    // tag4 (300 assets, all public, all of them common too) is walked; walks of 10 rows read
    // 200 entries of tag4 (twenty times, as for a record type on the entries).
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
      expect(walk.text).not.toMatch(/from asset_tag_order o\s/);
      expect(walk.text).toMatch(/e\.tag_hashes @> \(select cairn_text_hashes\(/);
      expect(walk.values).toContain('tag4');
      expect(walk.values).toContainEqual(['common']);
      after = short.page.next;
      pages += 1;
      if (pages > 1) continue;
      const { rows } = await pool.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${walk.text}`, walk.values);
      const plan = JSON.stringify(rows[0]?.['QUERY PLAN']);
      // Each read of tag4's entries (the walk's, and the stop's when the page is short) reads at most 200, and nothing else of the postings.
      const reads = [...plan.matchAll(/"Index Name":"asset_tag_order_walk"[^}]*?"Alias":"w[^"]*"[^}]*?"Actual Rows":(\d+)/g)].map((m) => Number(m[1]));
      expect(reads.length).toBeGreaterThan(0);
      expect(Math.max(...reads)).toBeLessThanOrEqual(200);
      expect(plan).not.toMatch(/"Relation Name":"asset_tag_order","Alias":"o"/);
    } while (after !== null);
    // 300 assets hold tag4 and common: three pages of 100.
    expect(pages).toBe(3);
  });

  it('a tag rarely beside another (a hash of the other on its entries) fetches only the assets of both', async () => {
    // rare: 3 assets (7, 1007, 2007), each with tag7 too, none with common; tag7 is 300.
    const viewer = { userId: owner, isSystemAdmin: false };
    const walked = await drivenPage(viewer, { tags: ['tag7', 'rare'] });
    const windowed = await drivenPage(viewer, { tags: ['tag7', 'rare'] }, { driven: false });
    expect(walked.page.json).toBe(windowed.page.json);
    expect(walked.page.count).toBe(3);
    const none = await drivenPage(viewer, { tags: ['tag7', 'common', 'tag4'] });
    expect(none.page.count).toBe(0);
    // Walked along tag7 (or rare, the rarer), the other checked on the entries: no asset fetched but the three.
    const walk = walked.statements.find((s) => s.text.includes('w.tag = '));
    if (!walk) throw new Error('no walk');
    const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (analyze, format json) ${walk.text}`, walk.values);
    const plan = rows[0]?.['QUERY PLAN'][0].Plan;
    if (!plan) throw new Error('no plan');
    expect(assetRowsRead(plan)).toBeLessThanOrEqual(3);
  });

  it('a title prefix walks the index of its first lowercased characters and q the order with its text, both index-only, no node reading more than the walk, and pages as the windows make them', async () => {
    // 'ASSET 1' fills the key of 6 ('asset ', every asset) and matches 1,111 titles, the
    // newest of them past the first 1,000 entries; '2' is in 1,700 titles or aliases. A key
    // every asset holds may as well be read along the order's own index, which holds the
    // same text (PostgreSQL picks either); a rare key ('asset 2999') only along its own.
    const everyAsset = (key: string) => `(${key}|assets_order_search)`;
    const cases: [Partial<AssetListFilter>, string][] = [
      [{ titlePrefix: 'ASSET 1' }, everyAsset('assets_title_prefix_walk_6')],
      [{ titlePrefix: 'Asset 2' }, everyAsset('assets_title_prefix_walk_6')],
      [{ titlePrefix: 'Asset 2999' }, 'assets_title_prefix_walk_10'],
      [{ titlePrefix: 'ass' }, everyAsset('assets_title_prefix_walk_3')],
      [{ q: '2' }, 'assets_order_search'],
      [{ q: 'SET 1' }, 'assets_order_search'],
    ];
    // Index-only walks need the visibility map, which a vacuum sets (as on the benchmark's table).
    await pool.query('vacuum analyze assets');
    // The walk's statement, by the text it reads.
    const isWalk = (text: string) => /left\(w\.search_text, \d+\)|w\.search_text from assets w/.test(text);
    for (const [filter, index] of cases) {
      await walkedPagesAsWindowed(filter, async (driven, n) => {
        const walk = driven.statements.find((s) => isWalk(s.text));
        if (!walk) throw new Error(`no walk: ${JSON.stringify(filter)}`);
        if (n !== 0) return;
        const { rows } = await pool.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${walk.text}`, walk.values);
        const plan = JSON.stringify(rows[0]?.['QUERY PLAN']);
        expect(plan, JSON.stringify(filter)).toMatch(new RegExp(`"Node Type":"Index Only Scan"[^}]*"Index Name":"${index}"`));
        // The text is checked on each entry as written, lowercased (migrations 0037, 0044), never lowercased entry by entry.
        expect(plan, JSON.stringify(filter)).toContain('titlePrefix' in filter ? '"Filter":"starts_with(e.search_text, ' : '"Filter":"(strpos(e.search_text, ');
        // A text walk reads at most four times the walk's 400 entries, where gathering the matches would read the table's 3,000.
        const read = [...plan.matchAll(/"Actual Rows":(\d+)/g)].map((m) => Number(m[1]));
        expect(Math.max(...read)).toBeLessThanOrEqual(1_600);
      });
    }
  });

  it('a text walk first reads ten entries a row it needs (1,010 for a page of 100), and a rare text hands over to the windows after them rather than after its whole cap', async () => {
    await pool.query('vacuum analyze assets');
    // '999' is in 6 titles or aliases of 3,000; 'asset 1' starts 1,111 titles, none among the
    // 999 newest. `q` walks on up to 32 times its bound (walk-sizes.ts): a bound of 100 rows
    // makes its 3,200 entries too few for the yield of its first 1,010, as a text one title in
    // a thousand holds is at 1,000,000 assets.
    // With its bound as by default (64,640 entries for a page of 100), '999' walks on past its first 1,010 entries, to the end of the order, and no window reads it.
    const on = await drivenPage({ userId: owner, isSystemAdmin: false }, { q: '999' });
    expect(on.page.json).toBe((await drivenPage({ userId: owner, isSystemAdmin: false }, { q: '999' }, { driven: false })).page.json);
    expect(on.statements.filter((st) => /w\.search_text from assets w/.test(st.text)).length).toBeGreaterThanOrEqual(2);
    expect(on.statements.some((st) => st.text.includes("interval '0 seconds'") && !st.text.includes('from asset_stars s where s.user_id'))).toBe(false);
    for (const [filter, walkRows] of [
      [{ q: '999' }, 100],
      [{ titlePrefix: 'asset 1' }, undefined],
    ] as const) {
      const viewer = { userId: owner, isSystemAdmin: false };
      const walked = await drivenPage(viewer, filter, walkRows === undefined ? {} : { walkRows });
      const windowed = await drivenPage(viewer, filter, { driven: false });
      expect(walked.page.json, JSON.stringify(filter)).toBe(windowed.page.json);
      const isWalk = (text: string) => /left\(w\.search_text, \d+\)|w\.search_text from assets w/.test(text);
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
      [{ titlePrefix: 'asset 99' }, 'left(w.search_text, 6)'],
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
