import { collectionAssetsPage, createReadDb, listCollections, viewerFacts, type CollectionAssetsOrdering, type ReadDb } from '@cairn/projections';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { genericPlanOf as genericPlan } from '../support/generic-plans.ts';
import { capturingPool, sortRows, type CapturedStatement } from '../support/statement-capture.ts';

/**
 * The plans of the collection listings on seeded tables (3,000 assets in one collection,
 * 20,000 collections, written straight into the read models of this test's own database,
 * then ANALYZE): a page of a collection's assets is a walk of that ordering's index of
 * collection_assets from the cursor on, in every ordering and for both kinds of viewer,
 * with no Sort of the collection; the collection listing walks the readers' postings of the
 * caller's principals (migration 0045), a system administrator's collections_order, and the
 * trigram indexes serve `q`.
 */
describe('collection listing plans', () => {
  let pool: pg.Pool;
  let db: ReadDb;
  let captured: CapturedStatement[] = [];
  const owner = randomUUID();
  /** Reads the collection's assets through the collection's entry (its `vc`), not through their own grants. */
  const reader = randomUUID();
  const large = randomUUID();

  beforeAll(async () => {
    ({ pool, captured } = await capturingPool());
    db = createReadDb(pool);
    await pool.query(
      `insert into collections (id, title, alias, owner_type, owner_user_id, parent_ids, owner_grants, entry_grants, created_at, updated_at)
       select case when i = 0 then $2::uuid else gen_random_uuid() end, case when i % 10000 = 7 then 'Glacier ' || i else 'Collection ' || i end, 'c' || i,
              'user', $1::uuid, '{}', jsonb_build_object('u:' || $1, 511), case when i = 0 then jsonb_build_object('u:' || $3, 1) else '{}'::jsonb end,
              timestamptz '2026-01-01' + i * interval '1 second', timestamptz '2026-01-01' + i * interval '1 second'
       from generate_series(0, 19999) i`,
      [owner, large, reader],
    );
    await pool.query(
      `insert into assets (id, title, alias, description, record_type, tags, metadata, owner_type, owner_id, owner_grants, entry_grants, collection_ids, created_by, created_at, updated_at)
       select gen_random_uuid(), 'Asset ' || (i % 700), 'a' || i, '', 'dataset', '{}', '{}', 'user', $1::uuid, jsonb_build_object('u:' || $1, 511), '{}', array[$2::uuid],
              case when i % 3 = 0 then $1::uuid else null end,
              timestamptz '2026-01-01' + i * interval '1 second', timestamptz '2026-02-01' - i * interval '1 second'
       from generate_series(1, 3000) i`,
      [owner, large],
    );
    await pool.query(`insert into collection_assets (collection_id, asset_id, created_at, updated_at, title, creator)
      select c, a.id, a.created_at, a.updated_at, a.title, coalesce(a.created_by, '00000000-0000-0000-0000-000000000000') from assets a, unnest(a.collection_ids) c`);
    await pool.query('insert into collection_reader_order (collection_id, principal, created_at) select c.id, r, c.created_at from collections c, unnest(c.readers) r');
    for (const table of ['assets', 'collections', 'collection_assets', 'collection_reader_order']) await pool.query(`analyze ${table}`);
  });
  afterAll(async () => pool?.end());

  const planOfLast = async (marker: string) => {
    const statement = captured.findLast((c) => c.text.includes(marker));
    if (!statement) throw new Error('the statement was not captured');
    const { rows } = await pool.query<{ 'QUERY PLAN': unknown }>(`explain (format json) ${statement.text}`, statement.values);
    return JSON.stringify(rows[0]?.['QUERY PLAN']);
  };

  /** The plan PostgreSQL keeps for the statement once prepared (generic-plans.ts). */
  const genericPlanOf = async (statement: CapturedStatement | undefined) => {
    if (!statement) throw new Error('no statement to explain');
    const client = await pool.connect();
    try {
      const plan = JSON.stringify(await genericPlan(client, statement));
      // Each parameter stays a parameter in a generic plan: the test would otherwise read a custom one.
      expect(plan).toMatch(/\$1\b/);
      return plan;
    } finally {
      client.release();
    }
  };

  const orderings: CollectionAssetsOrdering[] = ['created_at', '-created_at', 'updated_at', '-updated_at', 'title', '-title', 'creator', '-creator'];

  it('a page of a collection’s assets walks its ordering’s index from the cursor, in every ordering, for every kind of viewer', async () => {
    for (const userId of [owner, reader]) {
      const viewer = { userId, isSystemAdmin: false };
      const facts = await viewerFacts(db, userId);
      const { rows } = await pool.query<{ reads: boolean }>('select asset_readers && $1::text[] as reads from collections where id = $2', [facts.p, large]);
      expect(rows[0]?.reads).toBe(userId === reader);
      for (const ordering of orderings) {
        const index = `collection_assets_${{ created_at: 'created', updated_at: 'updated', title: 'title', creator: 'creator' }[ordering.replace('-', '') as 'title']}`;
        let after: [string, string] | null = null;
        for (const depth of ['first', 'second']) {
          captured.length = 0;
          const rows = await collectionAssetsPage(db, viewer, facts, large, ordering, after, 101, { commonSize: true });
          expect(rows, `${ordering} ${depth}`).toHaveLength(101);
          const plan = await planOfLast('collection_assets ca');
          expect(plan, `${userId === owner ? 'owner' : 'reader'} ${ordering} ${depth}`).toContain(`"Index Name":"${index}"`);
          expect(sortRows(plan).filter((n) => n > 200), `${ordering} ${depth}`).toEqual([]);
          // A page of the common size keeps its plan (prepared-statements.ts): the generic plan walks the same index, from the cursor too.
          const statement = captured.findLast((c) => c.text.includes('collection_assets ca') && !c.text.startsWith('explain'));
          expect(statement?.text.startsWith('/* cairn:kept-plan collections */'), `${ordering} ${depth}`).toBe(true);
          const genericPlan = await genericPlanOf(statement);
          expect(genericPlan, `generic ${ordering} ${depth}`).toContain(`"Index Name":"${index}"`);
          expect(genericPlan, `generic ${ordering} ${depth}`).not.toContain('"Node Type":"Sort"');
          after = (rows[99] as { key: [string, string] }).key;
        }
      }
    }
  });

  it("the collection listing walks each of the caller's principals' postings from the cursor, a system administrator collections_order, and the trigram indexes serve q", async () => {
    const viewer = { userId: owner, isSystemAdmin: false };
    captured.length = 0;
    const first = await listCollections(db, viewer, {}, null, 101);
    expect(first).toHaveLength(101);
    const walk = /"Node Type":"Index Only Scan"[^}]*"Index Name":"collection_reader_walk"/;
    const plan = await planOfLast('collection_reader_order o');
    expect(plan).toMatch(walk);
    expect(plan).not.toContain('"Index Name":"collections_order"');
    // Each principal's walk stops at the page's size: what is merged and sorted is a page per principal, never the collections.
    expect(sortRows(plan).filter((n) => n > 200)).toEqual([]);
    const second = await listCollections(db, viewer, {}, { createdAt: first[99]?.position ?? '', id: first[99]?.id ?? '' }, 101);
    expect(second[0]?.id).toBe(first[100]?.id);
    expect(await planOfLast('collection_reader_order o')).toMatch(walk);
    // A caller who sees one collection of 20,000, the oldest: one entry read, where a walk of the order would read them all.
    captured.length = 0;
    expect((await listCollections(db, { userId: reader, isSystemAdmin: false }, {}, null, 101)).map((c) => c.id)).toEqual([large]);
    expect(await planOfLast('collection_reader_order o')).toMatch(walk);
    // Candidates of two principals, 202 in all: the rows are looked up in the page's order and only until it is full.
    await pool.query(`insert into collection_reader_order (collection_id, principal, created_at)
      select id, 'g:extra', created_at from collections where title in (select 'Collection ' || i from generate_series(15000, 15100) i)`);
    captured.length = 0;
    const two = { p: ['*', `u:${owner}`, 'g:extra'] };
    expect((await listCollections(db, viewer, {}, null, 101, two)).map((c) => c.id)).toEqual(first.map((c) => c.id));
    const merged = captured.findLast((c) => c.text.includes('collection_reader_order o'));
    const { rows: analyzed } = await pool.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${merged?.text ?? ''}`, merged?.values);
    const lookups = [...JSON.stringify(analyzed[0]?.['QUERY PLAN']).matchAll(/"Index Name":"collections_pkey"[^}]*?"Actual Loops":(\d+)/g)].map((m) => Number(m[1]));
    expect(lookups.length).toBeGreaterThan(0);
    expect(Math.max(...lookups)).toBeLessThanOrEqual(101);
    await pool.query("delete from collection_reader_order where principal = 'g:extra'");
    // A caller of more principals than the postings' walks pay for (hundreds of groups) walks the order, as it did before them.
    captured.length = 0;
    const many = { p: [`u:${owner}`, ...Array.from({ length: 64 }, () => `g:${randomUUID()}`)] };
    expect((await listCollections(db, viewer, {}, null, 101, many)).map((c) => c.id)).toEqual(first.map((c) => c.id));
    expect(await planOfLast('from me, collections c')).toMatch(/"Node Type":"Index Only Scan"[^}]*"Index Name":"collections_order"/);
    captured.length = 0;
    expect(await listCollections(db, { userId: randomUUID(), isSystemAdmin: true }, {}, null, 101)).toHaveLength(101);
    const admin = await planOfLast('from me, collections c');
    // The readers are in the index (migration 0035); a system administrator sees every collection and walks the order itself.
    expect(admin).toMatch(/"Node Type":"Index Only Scan"[^}]*"Index Name":"collections_order"/);
    expect(sortRows(admin).filter((n) => n > 200)).toEqual([]);
    // Only an unfiltered page of the common size keeps its plan, and the kept plan walks as the planned one does.
    const kept = (c: CapturedStatement) => c.text.startsWith('/* cairn:kept-plan collections */');
    expect(captured.filter(kept)).toEqual([]);
    for (const [who, after, index] of [
      [viewer, null, 'collection_reader_walk'],
      [viewer, { createdAt: first[99]?.position ?? '', id: first[99]?.id ?? '' }, 'collection_reader_walk'],
      [{ userId: randomUUID(), isSystemAdmin: true }, null, 'collections_order'],
    ] as const) {
      captured.length = 0;
      expect(await listCollections(db, who, {}, after, 101, undefined, { commonSize: true })).toHaveLength(101);
      const statement = captured.findLast((c) => c.text.includes('page as materialized'));
      expect(statement && kept(statement)).toBe(true);
      const generic = await genericPlanOf(statement);
      expect(generic).toMatch(new RegExp(`"Node Type":"Index Only Scan"[^}]*"Index Name":"${index}"`));
      expect(sortRows(generic).filter((n) => n > 400)).toEqual([]);
      // The page's ancestors are looked up by key, one by one.
      expect(generic).not.toMatch(/"Node Type":"Bitmap Index Scan"[^}]*"Index Name":"collections_pkey"/);
    }
    captured.length = 0;
    await listCollections(db, viewer, {}, null, 101, many, { commonSize: true });
    await listCollections(db, viewer, { q: 'glacier' }, null, 101, undefined, { commonSize: true });
    expect(captured.filter(kept)).toEqual([]);
    captured.length = 0;
    const found = await listCollections(db, viewer, { q: 'glacier' }, null, 101);
    expect(found.map((c) => (JSON.parse(c.json) as { title: string }).title).sort()).toEqual(['Glacier 10007', 'Glacier 7']);
    // At 20,000 rows a scan of the table is the cheaper plan, and PostgreSQL rightly takes it;
    // what this checks is that the trigram indexes match the filter's expressions, so that a
    // larger table (the bench's EXPLAINs at 10,000 collections and more) can use them.
    const statement = captured.findLast((c) => c.text.includes('from me, collections c'));
    const client = await pool.connect();
    try {
      await client.query('begin');
      await client.query('set local enable_seqscan = off');
      const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(`explain (format json) ${statement?.text ?? ''}`, statement?.values);
      await client.query('rollback');
      expect(JSON.stringify(rows[0]?.['QUERY PLAN'])).toMatch(/"Index Name":"collections_title_search"[\s\S]*"Index Name":"collections_alias_search"/);
    } finally {
      client.release();
    }
  });

  it("the collections' GIN indexes keep no pending list, so that writes never leave a search to read one (migration 0046)", async () => {
    const { rows } = await pool.query<{ name: string; options: string[] | null }>(`select c.relname as name, c.reloptions as options from pg_index i
      join pg_class c on c.oid = i.indexrelid join pg_am a on a.oid = c.relam where i.indrelid = 'collections'::regclass and a.amname = 'gin' order by 1`);
    expect(rows.map((r) => r.name)).toEqual(['collections_alias_search', 'collections_ancestors', 'collections_asset_readers', 'collections_readers', 'collections_title_search']);
    for (const row of rows) expect(row.options, row.name).toContain('fastupdate=off');
  });
});
