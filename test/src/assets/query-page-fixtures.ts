import { randomUUID } from 'node:crypto';
import { assetPage, compileAssetQuery, createReadDb, type ReadDb } from '@cairn/projections';
import type pg from 'pg';
import { capturingPool, type CapturedStatement } from '../support/statement-capture.ts';

/**
 * Assets written straight into the read model (one owner, who holds every flag), and the
 * structured query's page over them with the statement it sent. `columns` are the SQL of
 * record_type, tags and metadata for row `i` of generate_series(1, count).
 */
export type QueryPageWorld = {
  readonly pool: pg.Pool;
  readonly db: ReadDb;
  readonly owner: string;
  /** The page, and the last page statement it ran (a bounded walk that comes back short runs again), and every page statement; `walkRows` as CAIRN_LISTING_WALK_ROWS; `seesEveryCollection` as a system administrator does; `gatherRows` bounds a range's gather. */
  pageOf(where: unknown, walkRows?: number, seesEveryCollection?: boolean, gatherRows?: number): Promise<{ page: Awaited<ReturnType<typeof assetPage>>; statement: CapturedStatement; statements: CapturedStatement[] }>;
};

export async function queryPageWorld(count: number, columns: { recordType: string; tags: string; metadata: string }): Promise<QueryPageWorld> {
  const { pool, captured } = await capturingPool();
  const db = createReadDb(pool);
  const owner = randomUUID();
  await pool.query(
    `insert into assets (id, title, alias, description, record_type, tags, metadata, owner_type, owner_id, owner_grants, entry_grants, created_at, updated_at)
     select gen_random_uuid(), 'Asset ' || i, 'a' || i, '', ${columns.recordType}, ${columns.tags}, ${columns.metadata},
            'user', $1::uuid, jsonb_build_object('u:' || $1, 511), '{}'::jsonb,
            timestamptz '2026-01-01' + i * interval '1 second', timestamptz '2026-01-01' + i * interval '1 second'
     from generate_series(1, ${count}) i`,
    [owner],
  );
  // The tags' and metadata values' rows in the listing's order, as the projection keeps them (migrations 0032, 0033, 0036, 0038).
  await pool.query('insert into asset_tag_order (tag, created_at, asset_id, record_type, tag_hashes) select distinct t, created_at, id, record_type, coalesce(cairn_text_hashes(tags), array[]::integer[]) from assets cross join unnest(tags) t');
  await pool.query('insert into asset_metadata_order (term, created_at, asset_id, record_type, tag_hashes) select t, a.created_at, a.id, a.record_type, coalesce(cairn_text_hashes(a.tags), array[]::integer[]) from assets a cross join lateral cairn_metadata_terms(a.metadata) t');
  await pool.query('insert into asset_metadata_numbers (path, value, created_at, asset_id, record_type) select n.path, n.value, a.created_at, a.id, a.record_type from assets a cross join lateral cairn_metadata_numbers(a.metadata) n');
  await pool.query('analyze assets');
  await pool.query('analyze asset_tag_order');
  await pool.query('analyze asset_metadata_order');
  await pool.query('analyze asset_metadata_numbers');
  return {
    pool,
    db,
    owner,
    async pageOf(where, walkRows, seesEveryCollection = false, gatherRows) {
      captured.length = 0;
      const page = await assetPage(db, { viewer: { userId: owner, isSystemAdmin: false }, conditions: compileAssetQuery(where, { seesEveryCollection }), after: null, limit: 100, deniedProjects: [], scanCap: 10_000, walkRows, gatherRows });
      const statements = captured.filter((c) => c.text.includes(' as phase,'));
      const statement = statements.at(-1);
      if (!statement) throw new Error('the page statement was not captured');
      return { page, statement, statements };
    },
  };
}
