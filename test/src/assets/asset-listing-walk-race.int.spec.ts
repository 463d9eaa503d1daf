import { assetPage, createReadDb, listConditions, listingDriver, type AssetListFilter, type ReadDb } from '@cairn/projections';
import { randomUUID } from 'node:crypto';
import type { KyselyPlugin } from 'kysely';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturingPool } from '../support/statement-capture.ts';

/**
 * A driven page whose walk comes back short reads where the walk stopped, then goes on by
 * windows (docs/assets.md, "Filters with an ordered index walk it"). Nothing holds the
 * page's statements to one snapshot, so a write committed between the walk and the
 * reading of where it stopped must not make the page skip or repeat an asset that matched
 * all along. The write is made between the two statements, on the read model itself.
 */
describe('a driven page and a write between its statements', () => {
  let pool: pg.Pool;
  let db: ReadDb;
  const owner = randomUUID();
  const viewer = { userId: randomUUID(), isSystemAdmin: true };

  beforeAll(async () => {
    ({ pool } = await capturingPool());
    db = createReadDb(pool);
    // Untagged assets, so that the order has a histogram to cut windows from.
    await pool.query(
      `insert into assets (id, title, alias, description, record_type, tags, metadata, owner_type, owner_id, owner_grants, entry_grants, created_at, updated_at)
       select gen_random_uuid(), 'Other ' || i, '', '', 'image', '{}', '{}', 'user', $1::uuid, jsonb_build_object('u:' || $1, 511), '{}',
              timestamptz '2025-01-01' + i * interval '1 second', timestamptz '2025-01-01' + i * interval '1 second'
       from generate_series(1, 60) i`,
      [owner],
    );
    await pool.query('analyze assets');
  });
  afterAll(async () => pool?.end());

  /** Assets holding `tag`, oldest first, with these titles; their tag rows as the projection writes them. */
  async function tagged(tag: string, titles: readonly string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const [i, title] of titles.entries()) {
      const id = randomUUID();
      ids.push(id);
      await pool.query(
        `insert into assets (id, title, alias, description, record_type, tags, metadata, owner_type, owner_id, owner_grants, entry_grants, created_at, updated_at)
         values ($1, $2, '', '', 'image', array[$3], '{}', 'user', $4::uuid, jsonb_build_object('u:' || $4, 511), '{}', timestamptz '2026-01-01' + $5 * interval '1 second', now())`,
        [id, title, tag, owner, i + 1],
      );
      await pool.query('insert into asset_tag_order (tag, created_at, asset_id, record_type, tag_hashes) select $1, created_at, id, record_type, coalesce(cairn_text_hashes(tags), array[]::integer[]) from assets where id = $2', [tag, id]);
    }
    return ids;
  }

  /** The listing's first page of `tags=tag&title=X`, walking three matches, with `between` run once right after the walk. */
  async function pageWith(tag: string, between: () => Promise<void>): Promise<string[]> {
    let pending = true;
    const walks = new Set<string>();
    const hook: KyselyPlugin = {
      transformQuery: (args) => {
        const text = JSON.stringify(args.node);
        if (text.includes('asset_tag_order w') && text.includes(' as phase')) walks.add(args.queryId.queryId);
        return args.node;
      },
      transformResult: async (args) => {
        if (pending && walks.has(args.queryId.queryId)) {
          pending = false;
          await between();
        }
        return args.result;
      },
    };
    const filter: AssetListFilter = { metadata: [], recordTypes: [], tags: [tag], titles: ['X'] };
    const page = await assetPage(db.withPlugin(hook), {
      viewer,
      conditions: { where: listConditions(filter, true), driver: listingDriver(filter) },
      after: null,
      limit: 10,
      deniedProjects: [],
      scanCap: 10_000,
      walkRows: 3,
    });
    expect(pending).toBe(false);
    return (JSON.parse(page.json) as { id: string }[]).map((a) => a.id);
  }

  it('skips no match when a match the walk saw loses the tag meanwhile', async () => {
    const tag = `t${randomUUID()}`;
    // Newest first: X, Y, Y, X, Y. The walk of three sees X, Y, Y; the second X lies beyond it.
    const [, a2, , a4, a5] = await tagged(tag, ['Y', 'X', 'Y', 'Y', 'X']);
    const ids = await pageWith(tag, async () => {
      await pool.query('delete from asset_tag_order where asset_id = $1', [a4]);
      await pool.query(`update assets set tags = '{}' where id = $1`, [a4]);
    });
    expect(ids).toEqual([a5, a2]);
  });

  it('repeats no match when a newer match is made meanwhile', async () => {
    const tag = `t${randomUUID()}`;
    // Newest first: X, Y, X, Y. The walk of three sees X, Y, X.
    const [, a2, , a4] = await tagged(tag, ['Y', 'X', 'Y', 'X']);
    const ids = await pageWith(tag, async () => {
      const id = randomUUID();
      await pool.query(
        `insert into assets (id, title, alias, description, record_type, tags, metadata, owner_type, owner_id, owner_grants, entry_grants, created_at, updated_at)
         values ($1, 'Y', '', '', 'image', array[$2], '{}', 'user', $3::uuid, jsonb_build_object('u:' || $3, 511), '{}', timestamptz '2026-01-01' + interval '1 hour', now())`,
        [id, tag, owner],
      );
      await pool.query('insert into asset_tag_order (tag, created_at, asset_id, record_type, tag_hashes) select $1, created_at, id, record_type, coalesce(cairn_text_hashes(tags), array[]::integer[]) from assets where id = $2', [tag, id]);
    });
    expect(ids).toEqual([a4, a2]);
  });
});
