import { randomUUID } from 'node:crypto';
import { createLogger, createPool, createPostgresEventStore, headPositionSql, readAllSql, startOfLog, upcastEvent, type EventStore } from '@cairn/platform';
import { createReadDb, fundingAgenciesProjection, rebuildBlueGreen, type ReadDb } from '@cairn/projections';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.ts';

/**
 * The global log is ordered by (transaction id, position) as numbers. A reader that sorted
 * the transaction id as text ('1000' before '999') moved its checkpoint past events it
 * never returned wherever the log crossed a power of ten of transaction ids.
 */
describe('PostgreSQL global log order', () => {
  let pool: pg.Pool;
  let store: EventStore;
  let db: ReadDb;

  beforeAll(async () => {
    const url = await createTestDatabase();
    pool = createPool(url, 4);
    store = createPostgresEventStore(pool, upcastEvent, url);
    db = createReadDb(pool);
  });

  afterAll(async () => {
    await pool.end();
  });

  /** Transaction ids at or below the cluster's current one, so the visibility rule lets them through. */
  async function boundaryBelowCurrentXid(): Promise<bigint> {
    for (;;) {
      const { rows } = await pool.query<{ xid: string }>('select pg_current_xact_id()::text as xid');
      const current = BigInt(rows[0]?.xid ?? '0');
      if (current > 1100n) {
        let boundary = 1000n;
        while (boundary * 10n + 50n < current) boundary *= 10n;
        return boundary;
      }
    }
  }

  /**
   * Readers take only transactions below the oldest one running anywhere on the server: a
   * long transaction of another test file may hold that back past our chosen ids for a while.
   */
  async function awaitVisible(xid: bigint): Promise<void> {
    for (let attempt = 0; attempt < 600; attempt += 1) {
      const { rows } = await pool.query<{ horizon: string }>('select pg_snapshot_xmin(pg_current_snapshot())::text as horizon');
      if (BigInt(rows[0]?.horizon ?? '0') > xid) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`transaction ${xid} never became visible`);
  }

  /** Stores events as if written by the given transactions, in the given insertion order. */
  async function insertWithTransactionIds(rows: readonly { xid: bigint; type: string; data: unknown }[]): Promise<string[]> {
    const ids: string[] = [];
    for (const row of rows) {
      const id = randomUUID();
      ids.push(id);
      const metadata = { actorId: null, requestId: null, correlationId: randomUUID(), causationId: null, occurredAt: '2026-11-23T10:00:00.000Z' };
      await pool.query(
        `insert into events (transaction_id, event_id, stream_id, stream_version, type, schema_version, data, metadata)
         values ($1::text::xid8, $2, $3, 1, $4, 2, $5, $6)`,
        [row.xid.toString(), id, `order-test-${id}`, row.type, JSON.stringify(row.data), JSON.stringify(metadata)],
      );
    }
    return ids;
  }

  it('pages through a power of ten of transaction ids in numeric order, every event once', async () => {
    const boundary = await boundaryBelowCurrentXid();
    // Inserted high ids first, so positions and transaction ids disagree as they do when
    // an older transaction commits late.
    const xids = [boundary + 2n, boundary, boundary - 1n, boundary + 1n, boundary - 2n, boundary - 3n];
    await insertWithTransactionIds(xids.map((xid) => ({ xid, type: 'LogOrderProbed', data: { xid: xid.toString() } })));
    await awaitVisible(boundary + 2n);

    for (const limit of [1, 2, 4]) {
      const seen: bigint[] = [];
      let after = startOfLog;
      for (;;) {
        const page = await store.readAll(after, limit);
        if (page.length === 0) break;
        for (const event of page) seen.push(event.position.major);
        after = page.at(-1)?.position ?? after;
      }
      expect(seen, `pages of ${limit}`).toEqual([...xids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    const head = await store.headPosition();
    expect(head.major).toBe(boundary + 2n);
  });

  it('a rebuild over such a boundary keeps every event', async () => {
    await pool.query('truncate events');
    const boundary = await boundaryBelowCurrentXid();
    const rows = Array.from({ length: 30 }, (_, i) => {
      const id = randomUUID();
      return { xid: boundary - 15n + BigInt(i), type: 'FundingAgencyCreated', data: { id, name: `Agency ${i}`, abbreviation: `A${i}`, url: '', catalogId: '' } };
    }).reverse();
    await insertWithTransactionIds(rows);
    await awaitVisible(boundary + 15n);

    await rebuildBlueGreen({ db, eventStore: store, logger: createLogger('silent'), batchSize: 4 }, fundingAgenciesProjection);
    const { rows: count } = await pool.query<{ n: number }>('select count(*)::int as n from funding_agencies');
    expect(count[0]?.n).toBe(30);
  });

  describe('plans', () => {
    beforeAll(async () => {
      await pool.query('truncate events');
      const boundary = await boundaryBelowCurrentXid();
      // 60,000 events from a few hundred transactions, then fresh statistics.
      await pool.query(
        `insert into events (transaction_id, event_id, stream_id, stream_version, type, schema_version, data, metadata)
         select ((${boundary / 2n} + g / 200)::text)::xid8, gen_random_uuid(), 'plan-' || g, 1, 'PlanProbed', 1, '{}', '{}'
         from generate_series(1, 60000) g`,
      );
      await pool.query('analyze events');
    });

    const plan = async (sqlText: string, params: unknown[]): Promise<string> => {
      const { rows } = await pool.query<{ 'QUERY PLAN': unknown }>(`explain (format json) ${sqlText}`, params);
      return JSON.stringify(rows[0]?.['QUERY PLAN']);
    };

    it('the log read is an index scan in log order, with no sort, at the start and deep into the log', async () => {
      const { rows } = await pool.query<{ xid: string; position: string }>(
        'select events.transaction_id::text as xid, events.position::text from events order by events.transaction_id, events.position offset 50000 limit 1',
      );
      const deep = rows[0];
      if (!deep) throw new Error('no rows');
      for (const params of [
        ['0', '0', 500],
        [deep.xid, deep.position, 500],
      ]) {
        const text = await plan(readAllSql, params);
        expect(text).toMatch(/"Node Type":"Index Scan"/);
        expect(text).toMatch(/"Index Name":"events_(pkey|global_order)"/);
        expect(text).not.toMatch(/"Node Type":"(Sort|Seq Scan)"/);
      }
    });

    it('the head of the log is one backward index probe', async () => {
      const text = await plan(headPositionSql, []);
      expect(text).toMatch(/"Scan Direction":"Backward"/);
      expect(text).not.toMatch(/"Node Type":"(Sort|Seq Scan)"/);
    });
  });
});
