import { randomUUID } from 'node:crypto';
import { createPool, createPostgresEventStore, migrate, upcastEvent, type NewEvent } from '@cairn/platform';
import type pg from 'pg';
import { closedLoop } from '../closed-loop.ts';
import { logReadLimit } from '../limits.ts';
import { withScratchDatabase } from '../scratch-database.ts';
import { fillLog } from './peer-appends.ts';
import { assetRegistered, batchOf } from './peer-payloads.ts';

const insertSql = `insert into events (event_id, stream_id, stream_version, type, schema_version, data, metadata)
  select e.id, $1, e.version, e.type, e.schema_version, e.data, e.metadata
  from unnest($2::uuid[], $3::bigint[], $4::text[], $5::int[], $6::jsonb[], $7::jsonb[]) as e(id, version, type, schema_version, data, metadata)`;

function insert(pool: pg.Pool, stream: string, events: readonly NewEvent[]) {
  return pool.query(insertSql, [
    stream,
    events.map((e) => e.id),
    events.map((_, i) => i + 1),
    events.map((e) => e.type),
    events.map((e) => e.schemaVersion),
    events.map((e) => JSON.stringify(e.data)),
    events.map((e) => JSON.stringify(e.metadata)),
  ]);
}

/**
 * The peer phases' bare-SQL ceilings with the peer payloads, keyed like the peer lines
 * (`append_1_event_new_stream|16|`): one INSERT statement (autocommit) of 1 or 10 event
 * rows per operation, and the bare keyset log read in pages of 1,000 over a 100,000-event
 * log. Events/s.
 */
export async function peerLimits(seconds: number, poolMax = 32): Promise<Map<string, number>> {
  return withScratchDatabase('peer_limits', async (url) => {
    const pool = createPool(url, poolMax);
    try {
      await migrate(pool);
      const limits = new Map<string, number>();
      for (const c of [1, 16]) {
        const single = await closedLoop(c, seconds, async () => {
          const id = randomUUID();
          await insert(pool, `asset-${id}`, [assetRegistered(id)]);
        });
        limits.set(`append_1_event_new_stream|${c}|`, single.perSecond);
        const ten = await closedLoop(c, seconds, async () => {
          const id = randomUUID();
          await insert(pool, `asset-${id}`, batchOf(id, 10));
        });
        limits.set(`append_10_event_batch_new_stream|${c}|`, ten.perSecond * 10);
      }
      limits.set('append_1_event_existing_stream_expected_version|16|', limits.get('append_1_event_new_stream|16|') ?? Number.NaN);
      await pool.query('truncate events');
      await fillLog(pool, createPostgresEventStore(pool, upcastEvent, url), 100_000, false);
      await logReadLimit(pool, 1000);
      limits.set('read_all||', (await logReadLimit(pool, 1000)).perSecond);
      return limits;
    } finally {
      await pool.end();
    }
  });
}
