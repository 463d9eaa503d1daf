import type { PagePosition } from '@cairn/projections';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetRowsRead, planWorld, type PlanNode, type PlanWorld } from './asset-plan-fixtures.ts';

/** The stars a plan's reads of the caller's stars gave after checking their copies (a node on `asset_stars` whose filter reads them), over all their loops. */
const starsOrderRows = (node: PlanNode & { Filter?: string }): number =>
  (node['Relation Name'] === 'asset_stars' && /search_text|record_type_hash|tag_hashes/.test(node.Filter ?? '') ? node['Actual Rows'] * node['Actual Loops'] : 0) +
  (node.Plans ?? []).reduce((sum, child) => sum + starsOrderRows(child), 0);

/**
 * The plans of a page's starred part (walk-sizes.ts, page-statements.ts) on the seeded table
 * of asset-plan-fixtures.ts: the caller's stars walked with what each holds of its asset
 * (text, record type, tags: migrations 0040, 0041) checked on the star, the filter's own
 * walk taking over when the stars yield too little, and a caller's few stars read whole in
 * the statement of the rest's first walk; every page the windows' own.
 */
describe('asset listing plans: the starred part', () => {
  let pool: pg.Pool;
  let drivenPage: PlanWorld['drivenPage'];

  beforeAll(async () => {
    ({ pool, drivenPage } = await planWorld());
  });
  afterAll(async () => pool?.end());

  /** The statement's plan as it ran (EXPLAIN ANALYZE). */
  async function analyzedPlan(statement: { text: string; values: unknown[] }): Promise<PlanNode> {
    const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (analyze, format json) ${statement.text}`, statement.values);
    const plan = rows[0]?.['QUERY PLAN'][0].Plan;
    if (!plan) throw new Error('no plan');
    return plan;
  }

  /**
   * A page of `filter` for a caller whose few stars are read whole (in the statement of the
   * rest's first walk, its plan kept): the walked page is the windowed one; the plan of the
   * statement that read the stars as it ran, and how many of the caller's stars `check`
   * (a condition on asset_stars) lets through.
   */
  async function fewStarsRead(viewer: { userId: string; isSystemAdmin: boolean }, filter: Parameters<PlanWorld['drivenPage']>[1], check: string) {
    const walked = await drivenPage(viewer, filter);
    const windowed = await drivenPage(viewer, filter, { driven: false });
    expect(walked.page.json, JSON.stringify(filter)).toBe(windowed.page.json);
    expect(walked.page.next).toEqual(windowed.page.next);
    const part = walked.statements.find((st) => st.text.includes('from asset_stars s where s.user_id') && st.text.includes("interval '0 seconds'"));
    if (!part) throw new Error(`no read of the few stars: ${JSON.stringify(filter)}`);
    expect(part.text.startsWith('/* cairn:kept-plan */'), JSON.stringify(filter)).toBe(true);
    const plan = await analyzedPlan(part);
    const candidates = Number((await pool.query<{ n: string }>(`select count(*) as n from asset_stars where user_id = $1 and ${check}`, [viewer.userId])).rows[0]?.n);
    return { walked, plan, candidates };
  }

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
        const plan = await analyzedPlan(walk);
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

  it("the starred part of a record type or of tags walks the caller's stars, the filter checked on each star's entry, probing no star; stars that yield too little hand the part to the filter's own walk; pages as the windows make them", async () => {
    // 1,000 stars, every third asset, each with its asset's type and tags (migration 0041), a ninth of them unknown (null: candidates).
    const fan = randomUUID();
    const superfan = randomUUID();
    await pool.query(
      `insert into asset_stars (user_id, asset_id, asset_created_at, starred_at, search_text, record_type, tags)
       select $1::uuid, id, created_at, now(), search_text, case when (metadata->>'n')::int % 9 = 0 then record_type end, tags
       from assets where (metadata->>'n')::int % 3 = 1`,
      [fan],
    );
    await pool.query('vacuum analyze asset_stars');
    const viewer = { userId: fan, isSystemAdmin: false };
    try {
      for (const filter of [{ recordTypes: ['image'] }, { tags: ['common', 'tag4'] }] as const) {
        let after: PagePosition | null = null;
        for (let n = 0; n < 3; n += 1) {
          const walked = await drivenPage(viewer, filter, { after, windowRows: 300 });
          const windowed = await drivenPage(viewer, filter, { after, driven: false, windowRows: 300 });
          expect(walked.page.json, `${JSON.stringify(filter)}, page ${n + 1}`).toBe(windowed.page.json);
          expect(walked.page.next).toEqual(windowed.page.next);
          const starsWalk = walked.statements.find((st) => /from asset_stars w/.test(st.text));
          if (n === 0) {
            if (!starsWalk) throw new Error(`no walk of the stars for ${JSON.stringify(filter)}`);
            // The stars' walk probes no star: each star is checked on its entry and only the matches are fetched.
            const plan = await analyzedPlan(starsWalk);
            expect(JSON.stringify(plan)).not.toContain('asset_stars_pkey');
            const check = 'recordTypes' in filter ? ['(record_type is null or record_type = $2)', 'image'] : ['(tags is null or tags @> $2::text[])', [...filter.tags]];
            const candidates = Number((await pool.query<{ n: string }>(`select count(*) as n from asset_stars where user_id = $1 and ${check[0] as string}`, [fan, check[1]])).rows[0]?.n);
            expect(assetRowsRead(plan)).toBeLessThanOrEqual(candidates);
          }
          after = walked.page.next;
          if (!after) break;
        }
      }
      // A caller who starred every asset, and a tag 3 of them hold: the first 1,010 stars meet
      // at most one, too few for a walk of the stars within its bound (starsForFilterMost), so
      // the tag's own walk (its postings, probing the stars) takes the starred part over.
      await pool.query(`insert into asset_stars (user_id, asset_id, asset_created_at, starred_at, search_text, record_type, tags) select $1::uuid, id, created_at, now(), search_text, record_type, tags from assets`, [superfan]);
      await pool.query('vacuum analyze asset_stars');
      const all = { userId: superfan, isSystemAdmin: false };
      const handed = await drivenPage(all, { tags: ['rare'] }, { windowRows: 300 });
      const windowed = await drivenPage(all, { tags: ['rare'] }, { driven: false, windowRows: 300 });
      expect(handed.page.json).toBe(windowed.page.json);
      const walks = handed.statements.map((st) => (/from asset_stars w/.test(st.text) ? 'stars' : /from asset_tag_order w/.test(st.text) ? (/select 0 as phase/.test(st.text) ? 'tag, starred' : 'tag, rest') : 'other'));
      expect(walks.slice(0, 2)).toEqual(['stars', 'tag, starred']);
    } finally {
      await pool.query('delete from asset_stars where user_id = any($1::uuid[])', [[fan, superfan]]);
      await pool.query('analyze asset_stars');
    }
  });

  it("the starred part of a title prefix walks the caller's stars under the prefix's first characters, the prefix checked on each entry, probing no star; unknown texts are candidates; a prefix too rare among the stars hands the part to the prefix's own walk", async () => {
    // 6,000 public assets of another title ('Zeta i', between the world's own in the order), all starred by
    // the fan, and every third of the world's: 1,000 stars under the key `ass`, a ninth of them unknown
    // (null: candidates), among 7,000. The walk reads the stars under the key, not the Zetas.
    const fan = randomUUID();
    const superfan = randomUUID();
    const zetaOwner = randomUUID();
    await pool.query(
      `insert into assets (id, title, alias, description, record_type, tags, metadata, owner_type, owner_id, owner_grants, entry_grants, created_at, updated_at)
       select gen_random_uuid(), 'Zeta ' || i, 'z' || i, '', 'image', '{}', '{}', 'user', $1::uuid, jsonb_build_object('u:' || $1, 511), '{"*": 1}'::jsonb,
              timestamptz '2026-01-01' + i * interval '0.5 second', timestamptz '2026-01-01' + i * interval '0.5 second'
       from generate_series(1, 6000) i`,
      [zetaOwner],
    );
    await pool.query(
      `insert into asset_stars (user_id, asset_id, asset_created_at, starred_at, search_text)
       select $1::uuid, id, created_at, now(), case when (metadata->>'n')::int % 9 = 0 then null else search_text end
       from assets where (metadata->>'n')::int % 3 = 1 or owner_id = $2::uuid`,
      [fan, zetaOwner],
    );
    await pool.query('vacuum analyze assets');
    await pool.query('vacuum analyze asset_stars');
    const viewer = { userId: fan, isSystemAdmin: false };
    const starsWalk = (st: { text: string }) => /from asset_stars w/.test(st.text);
    try {
      let after: PagePosition | null = null;
      for (let n = 0; n < 3; n += 1) {
        const walked = await drivenPage(viewer, { titlePrefix: 'Asset 1' }, { after, windowRows: 300 });
        const windowed = await drivenPage(viewer, { titlePrefix: 'Asset 1' }, { after, driven: false, windowRows: 300 });
        expect(walked.page.json, `page ${n + 1}`).toBe(windowed.page.json);
        expect(walked.page.next).toEqual(windowed.page.next);
        if (n === 0) {
          const walk = walked.statements.find(starsWalk);
          if (!walk) throw new Error('no walk of the stars');
          const plan = await analyzedPlan(walk);
          const text = JSON.stringify(plan);
          expect(text).toContain('asset_stars_title_prefix');
          expect(text).toContain('asset_stars_text_unknown');
          expect(text).not.toContain('asset_stars_pkey');
          expect(text).not.toContain('assets_title_prefix_walk');
          // Only candidates are fetched: the stars whose text starts with the prefix, or is unknown.
          const candidates = Number((await pool.query<{ n: string }>(`select count(*) as n from asset_stars where user_id = $1 and (search_text is null or search_text like 'asset 1%')`, [fan])).rows[0]?.n);
          expect(assetRowsRead(plan)).toBeGreaterThan(0);
          expect(assetRowsRead(plan)).toBeLessThanOrEqual(candidates);
          // The stars of another key are not read.
          const read = (node: PlanNode): number => (node['Relation Name'] === 'asset_stars' ? node['Actual Rows'] * node['Actual Loops'] : 0) + (node.Plans ?? []).reduce((sum, c) => sum + read(c), 0);
          const underKey = Number((await pool.query<{ n: string }>(`select count(*) as n from asset_stars where user_id = $1 and (search_text is null or left(search_text, 3) = 'ass')`, [fan])).rows[0]?.n);
          expect(read(plan)).toBeLessThanOrEqual(underKey);
          // The plan PostgreSQL keeps for the statement (generic) reads the unknown ones from their own index too, not every star of the caller.
          const client = await pool.connect();
          try {
            await client.query('set plan_cache_mode = force_generic_plan');
            const generic = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (format json) ${walk.text}`, walk.values);
            const genericText = JSON.stringify(generic.rows[0]?.['QUERY PLAN'][0].Plan);
            expect(genericText).toContain('asset_stars_text_unknown');
            expect(genericText).not.toContain('asset_stars_order');
          } finally {
            await client.query('reset plan_cache_mode');
            client.release();
          }
        }
        after = walked.page.next;
        if (!after) break;
      }
      // A caller who starred every asset, and a prefix one asset holds: the first 1,010 stars under
      // its key meet at most one, too few, so the prefix's own walk (its index, probing the stars) takes over.
      await pool.query(`insert into asset_stars (user_id, asset_id, asset_created_at, starred_at, search_text) select $1::uuid, id, created_at, now(), search_text from assets where owner_id <> $2::uuid`, [superfan, zetaOwner]);
      await pool.query('vacuum analyze asset_stars');
      const all = { userId: superfan, isSystemAdmin: false };
      const handed = await drivenPage(all, { titlePrefix: 'Asset 2998' }, { windowRows: 300 });
      const windowed = await drivenPage(all, { titlePrefix: 'Asset 2998' }, { driven: false, windowRows: 300 });
      expect(handed.page.json).toBe(windowed.page.json);
      expect(handed.page.count).toBe(1);
      const walks = handed.statements.map((st) => (starsWalk(st) ? 'stars' : /left\(w\.search_text, 10\)/.test(st.text) ? (/select 0 as phase/.test(st.text) ? 'prefix, starred' : 'prefix, rest') : 'other'));
      expect(walks.slice(0, 2)).toEqual(['stars', 'prefix, starred']);
    } finally {
      await pool.query('delete from asset_stars where user_id = any($1::uuid[])', [[fan, superfan]]);
      await pool.query('delete from assets where owner_id = $1::uuid', [zetaOwner]);
      await pool.query('vacuum analyze assets');
      await pool.query('analyze asset_stars');
    }
  });

  it("the starred part of a caller with few stars, read whole in the statement of the rest's first walk, checks the stars' copies of text, record type and tags first, fetching only candidates, and pages as the windows make them", async () => {
    // 120 stars (every 25th asset), their copies as the projection writes them; a tenth of them unknown (null: candidates).
    const fan = randomUUID();
    await pool.query(
      `insert into asset_stars (user_id, asset_id, asset_created_at, starred_at, search_text, record_type, tags)
       select $1::uuid, id, created_at, now(), case when (metadata->>'n')::int % 250 <> 0 then search_text end,
              case when (metadata->>'n')::int % 250 <> 0 then record_type end, case when (metadata->>'n')::int % 250 <> 0 then tags end
       from assets where (metadata->>'n')::int % 25 = 0`,
      [fan],
    );
    await pool.query('vacuum analyze asset_stars');
    const viewer = { userId: fan, isSystemAdmin: false };
    try {
      for (const [filter, check] of [
        [{ q: '75' }, `(search_text is null or search_text like '%75%')`],
        [{ recordTypes: ['dataset'] }, `(record_type is null or record_type = 'dataset')`],
        [{ tags: ['tag5'] }, `(tags is null or tags @> '{tag5}')`],
        [{ tags: ['tag5'], recordTypes: ['dataset'] }, `(tags is null or tags @> '{tag5}') and (record_type is null or record_type = 'dataset')`],
      ] as const) {
        const { walked, plan, candidates } = await fewStarsRead(viewer, filter, check);
        // The stars and the rest's first walk are one statement: a third of the assets are datasets, so that walk fills the page.
        if (!('q' in filter) && !('tags' in filter)) expect(walked.statements, JSON.stringify(filter)).toHaveLength(1);
        expect(candidates).toBeLessThan(100);
        // The stars' read gives only the candidates (each then fetched), not the caller's 120 stars.
        const starsRead = starsOrderRows(plan);
        expect(starsRead, JSON.stringify(filter)).toBeGreaterThan(0);
        expect(starsRead, JSON.stringify(filter)).toBeLessThanOrEqual(candidates);
      }
    } finally {
      await pool.query('delete from asset_stars where user_id = $1::uuid', [fan]);
      await pool.query('analyze asset_stars');
    }
  });
  it("beside a metadata value's or an owner's walk, a caller's few stars read whole are checked on their copies of the asset's terms and owner first, fetching only candidates", async () => {
    // 120 stars (every 25th asset) with their copies (migration 0053), a tenth of them unknown
    // (null: candidates); a site (one of seven) in each asset's metadata, with the postings
    // as the projection keeps them, and every 100th asset another owner's.
    const fan = randomUUID();
    const other = randomUUID();
    await pool.query(`update assets set metadata = metadata || jsonb_build_object('site', 's' || ((metadata->>'n')::int % 7))`);
    await pool.query(`insert into asset_metadata_order (term, created_at, asset_id, record_type, tag_hashes)
      select t, created_at, id, record_type, coalesce(cairn_text_hashes(tags), '{}') from assets cross join lateral cairn_metadata_terms(metadata) t`);
    await pool.query(`update assets set owner_id = $1::uuid where (metadata->>'n')::int % 100 = 0`, [other]);
    await pool.query(
      `insert into asset_stars (user_id, asset_id, asset_created_at, starred_at, search_text, record_type, tags, owner_id, metadata_terms)
       select $1::uuid, id, created_at, now(), search_text, record_type, tags,
              case when (metadata->>'n')::int % 250 <> 0 then owner_id end,
              case when (metadata->>'n')::int % 250 <> 0 then array(select cairn_metadata_terms(metadata)) end
       from assets where (metadata->>'n')::int % 25 = 0`,
      [fan],
    );
    await pool.query('vacuum analyze asset_stars');
    await pool.query('vacuum analyze asset_metadata_order');
    await pool.query('vacuum analyze assets');
    const viewer = { userId: fan, isSystemAdmin: false };
    const copiedStarsRows = (node: PlanNode & { Filter?: string }): number =>
      (node['Relation Name'] === 'asset_stars' && /metadata_terms|owner_id/.test(node.Filter ?? '') ? node['Actual Rows'] * node['Actual Loops'] : 0) +
      (node.Plans ?? []).reduce((sum, child) => sum + copiedStarsRows(child), 0);
    try {
      for (const [filter, check] of [
        [{ metadata: ['site:s3'] }, `(metadata_terms is null or (asset_id in (select id from assets where metadata->>'site' = 's3')))`],
        [{ ownerId: other }, `(owner_id is null or owner_id = '${other}')`],
        [{ ownerId: other, tags: ['tag0'] }, `(owner_id is null or owner_id = '${other}')`],
      ] as const) {
        const { plan, candidates } = await fewStarsRead(viewer, filter, check);
        expect(candidates, JSON.stringify(filter)).toBeLessThan(50);
        // The stars' read gives only the candidates (each then fetched), not the caller's 120 stars.
        const starsRead = copiedStarsRows(plan);
        expect(starsRead, JSON.stringify(filter)).toBeGreaterThan(0);
        expect(starsRead, JSON.stringify(filter)).toBeLessThanOrEqual(candidates);
      }
    } finally {
      await pool.query('delete from asset_stars where user_id = $1::uuid', [fan]);
      await pool.query('delete from asset_metadata_order');
      await pool.query(`update assets set metadata = metadata - 'site'`);
      await pool.query(`update assets set owner_id = (select owner_id from assets where (metadata->>'n')::int = 1) where owner_id = $1::uuid`, [other]);
      await pool.query('vacuum analyze assets');
      await pool.query('analyze asset_stars');
      await pool.query('analyze asset_metadata_order');
    }
  });
  // Last: its 3,000 stars, written and deleted, change the table's size, which other plans here are near the edge of.
  it("the starred part of tags and a record type whose shares the statistics know first walks as many stars as those shares need: one statement where ten stars a row took two", async () => {
    // A caller who starred every asset (half of them public). `tag4` is on a tenth of the assets
    // (all public), `common` on nearly all, `dataset` a third: one in thirty, so 101 rows need
    // about 3,800 stars by the statistics; there are 3,000, with 100 matches. Ten stars a row
    // (1,010) met 34 of them, and a second walk read the rest.
    const superfan = randomUUID();
    await pool.query(`insert into asset_stars (user_id, asset_id, asset_created_at, starred_at, search_text, record_type, tags) select $1::uuid, id, created_at, now(), search_text, record_type, tags from assets`, [superfan]);
    await pool.query('vacuum analyze asset_stars');
    const all = { userId: superfan, isSystemAdmin: false };
    try {
      const filter = { tags: ['tag4', 'common'], recordTypes: ['dataset'] };
      const walked = await drivenPage(all, filter, { windowRows: 300 });
      const windowed = await drivenPage(all, filter, { driven: false, windowRows: 300 });
      expect(walked.page.json).toBe(windowed.page.json);
      expect(walked.page.next).toEqual(windowed.page.next);
      expect(walked.page.count).toBe(100);
      const starsWalks = walked.statements.filter((st) => /from asset_stars w/.test(st.text));
      expect(starsWalks).toHaveLength(1);
      const plan = await analyzedPlan(starsWalks[0] as { text: string; values: unknown[] });
      // Every star was read in that one statement, more than ten a row.
      const starsRead = (node: PlanNode): number => (node['Relation Name'] === 'asset_stars' ? node['Actual Rows'] * node['Actual Loops'] : 0) + (node.Plans ?? []).reduce((sum, c) => sum + starsRead(c), 0);
      expect(starsRead(plan)).toBeGreaterThan(1_010);
    } finally {
      await pool.query('delete from asset_stars where user_id = $1', [superfan]);
      await pool.query('vacuum analyze asset_stars');
    }
  });
});
