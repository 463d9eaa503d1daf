import { createPool, migrate } from '@cairn/platform';
import { fillLog } from './fill-log.ts';
import {
  appendWithReadModelLimit,
  insertEventLimit,
  insertReadModelLimit,
  logReadLimit,
  pointSelectLimit,
  replayLimit,
  servicePoolSize,
  setBasedInsertLimit,
} from './limits.ts';
import { withScratchDatabase } from './scratch-database.ts';
import { printTable, type Cell } from './table.ts';

/** `npm run bench -- limits`: the bare-SQL ceilings themselves, on a migrated scratch database. */
export async function limitsBenchmark(scale: number): Promise<void> {
  await withScratchDatabase('limits', async (url) => {
    const pool = createPool(url, servicePoolSize);
    try {
      await migrate(pool);
      const seconds = Math.max(2, 5 * scale);
      const rows: Cell[][] = [];
      const loops = [
        ['single-row INSERT into events', insertEventLimit],
        ['single-row INSERT into funding_agencies', insertReadModelLimit],
        ['append + read-model insert (begin, 2 inserts, commit)', appendWithReadModelLimit],
        ['point SELECT events by stream_id', pointSelectLimit],
      ] as const;
      for (const [label, run] of loops) {
        for (const clients of [1, 16]) {
          const r = await run(pool, clients, seconds);
          rows.push([label, clients, r.perSecond, 'per s', r.p50Ms, r.p99Ms, r.errors]);
        }
      }
      // The log read after the write loops: a freshly filled million-row table slows small writes for a while.
      const logEvents = Math.round(1_000_000 * scale);
      const fill = await fillLog(pool, logEvents);
      console.log(`\nlog filled: ${logEvents.toLocaleString('en-US')} events in ${fill.seconds.toFixed(1)} s (set-based, for the log read)`);
      await logReadLimit(pool); // warm-up, untimed
      const log = await logReadLimit(pool);
      rows.push([`global log read, pages of 5,000 (${log.events.toLocaleString('en-US')} events)`, 1, log.perSecond, 'events/s', log.firstBatchMs, log.lastBatchMs, 0]);
      const insert = await setBasedInsertLimit(pool, Math.max(50_000, Math.round(200_000 * scale)));
      rows.push(['json_populate_recordset INSERT, 5,000 rows a statement', 1, insert.perSecond, 'rows/s', null, null, 0]);
      const bare = await setBasedInsertLimit(pool, Math.max(50_000, Math.round(200_000 * scale)), 5000, 'primary key');
      rows.push(['  the same into a primary-key-only table', 1, bare.perSecond, 'rows/s', null, null, 0]);
      rows.push(['replay ceiling (log read + set-based insert per event)', 1, replayLimit(log.perSecond, insert.perSecond), 'events/s', null, null, 0]);
      printTable(
        `Bare-SQL limits (node pg, pool ${servicePoolSize}; closed loops of ${seconds} s; log read: p50/p99 columns = first/last full batch ms)`,
        ['statement', 'clients', 'rate', 'unit', 'p50 ms', 'p99 ms', 'errors'],
        rows,
      );
    } finally {
      await pool.end();
    }
  });
}
