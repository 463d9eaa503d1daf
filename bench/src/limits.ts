/**
 * Bare-SQL ceilings: the statements the write path and the projections are made of, sent
 * with `pg` and nothing else, at the service's pool size. Other benchmarks print these
 * beside their figures.
 */
import { defaultPoolSize } from '@cairn/platform';
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type pg from 'pg';
import { closedLoop, type LoopResult } from './closed-loop.ts';
import { fundingAgencyCreated, fundingAgencyRow } from './funding-agency-event.ts';

/** The service's main pool on this machine (CAIRN_DB_POOL_SIZE unset: platform's defaultPoolSize). */
export const servicePoolSize = defaultPoolSize(availableParallelism());

const insertEventSql = `insert into events (event_id, stream_id, stream_version, type, schema_version, data, metadata)
  values ($1, $2, 1, $3, $4, $5, $6)`;
const insertReadModelSql = `insert into funding_agencies (id, name, abbreviation, url, catalog_id, created_at, updated_at)
  values ($1, $2, $3, $4, $5, $6, $7)`;

function eventParams(n: number): unknown[] {
  const e = fundingAgencyCreated(n);
  return [e.id, e.streamId, e.type, e.schemaVersion, JSON.stringify(e.data), JSON.stringify(e.metadata)];
}

function rowParams(n: number): unknown[] {
  const r = fundingAgencyRow(n);
  return [r.id, r.name, r.abbreviation, r.url, r.catalog_id, r.created_at, r.updated_at];
}

let serial = 0;

/** One single-row INSERT into `events` per operation (a funding-agency event's columns and payload). */
export function insertEventLimit(pool: pg.Pool, clients: number, seconds: number): Promise<LoopResult> {
  return closedLoop(clients, seconds, async () => {
    await pool.query(insertEventSql, eventParams((serial += 1)));
  });
}

/** One single-row INSERT into `funding_agencies` per operation. */
export function insertReadModelLimit(pool: pg.Pool, clients: number, seconds: number): Promise<LoopResult> {
  return closedLoop(clients, seconds, async () => {
    await pool.query(insertReadModelSql, rowParams((serial += 1)));
  });
}

/** begin; INSERT into `events`; INSERT into `funding_agencies`; commit: an append that applies its read model inline. */
export function appendWithReadModelLimit(pool: pg.Pool, clients: number, seconds: number): Promise<LoopResult> {
  return closedLoop(clients, seconds, async () => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      await client.query(insertEventSql, eventParams((serial += 1)));
      await client.query(insertReadModelSql, rowParams(serial));
      await client.query('commit');
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  });
}

/** A point SELECT by an indexed key (a stream read or a read-back): `events` by `stream_id`. */
export async function pointSelectLimit(pool: pg.Pool, clients: number, seconds: number): Promise<LoopResult> {
  const { rows } = await pool.query<{ stream_id: string }>('select stream_id from events order by position desc limit 1000');
  const streams = rows.length > 0 ? rows.map((r) => r.stream_id) : [`none-${randomUUID()}`];
  return closedLoop(clients, seconds, async (_, i) => {
    await pool.query('select * from events where events.stream_id = $1 order by events.stream_version', [streams[i % streams.length]]);
  });
}

export const bareLogReadSql = `select events.position, events.transaction_id::text as xid, events.event_id, events.stream_id, events.stream_version,
    events.type, events.schema_version, events.data, events.metadata, events.recorded_at
  from events
  where (events.transaction_id, events.position) > ($1::text::xid8, $2::bigint)
    and events.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
  order by events.transaction_id, events.position
  limit $3`;

export type LogReadResult = { readonly events: number; readonly seconds: number; readonly perSecond: number; readonly firstBatchMs: number; readonly lastBatchMs: number };

/** The whole global log, page after page of `batch`, with the bare keyset SQL: events/s. */
export async function logReadLimit(pool: pg.Pool, batch = 5000): Promise<LogReadResult> {
  let after = { xid: '0', position: '0' };
  let events = 0;
  const batches: number[] = [];
  const started = performance.now();
  for (;;) {
    const at = performance.now();
    const { rows } = await pool.query<{ xid: string; position: string }>(bareLogReadSql, [after.xid, after.position, batch]);
    batches.push(performance.now() - at);
    events += rows.length;
    const last = rows.at(-1);
    if (!last || rows.length < batch) break;
    after = { xid: last.xid, position: last.position };
  }
  const seconds = (performance.now() - started) / 1000;
  const full = batches.length > 1 ? batches.slice(0, -1) : batches;
  return { events, seconds, perSecond: events / seconds, firstBatchMs: full[0] ?? Number.NaN, lastBatchMs: full.at(-1) ?? Number.NaN };
}

/**
 * `insert into <table> select * from json_populate_recordset(null::funding_agencies, $1)`,
 * `batch` rows a statement, `rows` in all, into a table shaped like `funding_agencies`
 * (a fresh copy with all its indexes, or with its primary key only; dropped afterwards): rows/s.
 */
export async function setBasedInsertLimit(pool: pg.Pool, rows: number, batch = 5000, indexes: 'all' | 'primary key' = 'all'): Promise<{ rows: number; seconds: number; perSecond: number }> {
  const table = `bench_limit_fa_${Date.now().toString(36)}`;
  // 'primary key': the table a rebuild could load before building the other indexes.
  await pool.query(indexes === 'all' ? `create table ${table} (like funding_agencies including all)` : `create table ${table} (like funding_agencies including defaults, primary key (id))`);
  try {
    let done = 0;
    let seconds = 0;
    while (done < rows) {
      const size = Math.min(batch, rows - done);
      const json = JSON.stringify(Array.from({ length: size }, (_, i) => fundingAgencyRow(done + i)));
      // Only the statement is timed: building the JSON is the caller's work, not the database's.
      const started = performance.now();
      await pool.query(`insert into ${table} select * from json_populate_recordset(null::funding_agencies, $1)`, [json]);
      seconds += (performance.now() - started) / 1000;
      done += size;
    }
    return { rows: done, seconds, perSecond: done / seconds };
  } finally {
    await pool.query(`drop table if exists ${table}`);
  }
}

/** A replay's ceiling: each event read once (log read) and written once (set-based insert). */
export function replayLimit(logReadPerSecond: number, insertPerSecond: number): number {
  return 1 / (1 / logReadPerSecond + 1 / insertPerSecond);
}
