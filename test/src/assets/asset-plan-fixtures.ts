import { assetPage, createReadDb, listConditions, listingDriver, type AssetListFilter, type PagePosition, type ViewerFacts } from '@cairn/projections';
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { capturingPool } from '../support/statement-capture.ts';

/** A node of EXPLAIN's JSON plan. */
export type PlanNode = { 'Node Type': string; 'Relation Name'?: string; Alias?: string; 'Actual Rows': number; 'Actual Loops': number; Plans?: PlanNode[] };

/** The assets the plan fetched (its nodes on `assets` as `a`, not the walk's entries), over all their loops. */
export const assetRowsRead = (node: PlanNode): number =>
  (node['Relation Name'] === 'assets' && /^a(_\d+)?$/.test(node.Alias ?? '') ? node['Actual Rows'] * node['Actual Loops'] : 0) + (node.Plans ?? []).reduce((sum, child) => sum + assetRowsRead(child), 0);

/**
 * The listing plans' world: 3,000 assets written straight into the read model of a
 * database of its own, then ANALYZE (`owner` holds them all, the even ones are public,
 * `stargazer` starred two), with the page helpers the plan tests use and the statements
 * they ran (`captured`).
 */
export async function planWorld() {
  const { pool, captured } = await capturingPool();
  const db = createReadDb(pool);
  const owner = randomUUID();
  const stargazer = randomUUID();
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
    await pool.query('insert into asset_tag_order (tag, created_at, asset_id, record_type, tag_hashes) select distinct t, created_at, id, record_type, coalesce(cairn_text_hashes(tags), array[]::integer[]) from assets cross join unnest(tags) t');
    await pool.query('analyze assets');
    await pool.query('analyze asset_stars');
    await pool.query('analyze asset_tag_order');

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

  /** A page along the filter's driver (order-drivers.ts), and the statements it ran. */
  async function drivenPage(viewer: { userId: string; isSystemAdmin: boolean }, filter: Partial<AssetListFilter>, options: { after?: PagePosition | null; walkRows?: number; windowRows?: number; wideWindowRows?: number; driven?: boolean; facts?: ViewerFacts } = {}) {
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
      wideWindowRows: options.wideWindowRows,
      facts: options.facts,
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

  return { pool, db, captured, owner, stargazer, planOf, drivenPage, walkedPagesAsWindowed };
}

export type PlanWorld = Awaited<ReturnType<typeof planWorld>>;
