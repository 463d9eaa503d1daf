import { createLogger, createPool, createPostgresEventStore, migrate, upcastEvent, type GlobalPosition } from '@cairn/platform';
import { catchUp, createReadDb, fundingAgenciesProjection, rebuildBlueGreen, resetProjection } from '@cairn/projections';
import { fillLog, hasStreamsTable } from './fill-log.ts';
import { logReadLimit, replayLimit, servicePoolSize, setBasedInsertLimit } from './limits.ts';
import { withScratchDatabase } from './scratch-database.ts';
import { printTable, ratio, type Cell } from './table.ts';

const page = 5000;

async function timedSeconds(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

/**
 * `npm run bench -- replay`: a 1,000,000-event log (times BENCH_SCALE) of funding-agency
 * creations, filled with set-based SQL; then the event store's global log read in pages
 * of 5,000, projection catch-up from zero (the rebuild's way, then batch by batch into the
 * live table) and a blue-green rebuild, in events/s, beside
 * the bare log read and the bare set-based insert.
 */
export async function replayBenchmark(scale: number): Promise<void> {
  const total = Math.round(1_000_000 * scale);
  await withScratchDatabase('replay', async (url) => {
    const pool = createPool(url, servicePoolSize);
    try {
      await migrate(pool);
      const streams = await hasStreamsTable(pool);
      const fill = await fillLog(pool, total);
      console.log(`\nlog filled: ${total.toLocaleString('en-US')} events in ${fill.seconds.toFixed(1)} s (${Math.round(total / fill.seconds).toLocaleString('en-US')}/s, set-based; streams table ${streams ? 'present, filled too' : 'absent'})`);
      const store = createPostgresEventStore(pool, upcastEvent, url);
      const db = createReadDb(pool);
      const options = { db, eventStore: store, logger: createLogger('silent') };

      await logReadLimit(pool, page); // warm-up: the timed reads below start from the same cache
      const bareRead = await logReadLimit(pool, page);
      const bareInsert = await setBasedInsertLimit(pool, Math.min(total, Math.max(50_000, Math.round(200_000 * scale))), page);
      const pkOnly = await setBasedInsertLimit(pool, Math.min(total, Math.max(50_000, Math.round(200_000 * scale))), page, 'primary key');
      const replay = replayLimit(bareRead.perSecond, bareInsert.perSecond);

      let read = 0;
      const readSeconds = await timedSeconds(async () => {
        let after: GlobalPosition = { major: 0n, minor: 0n };
        for (;;) {
          const events = await store.readAll(after, page);
          read += events.length;
          const last = events.at(-1);
          if (!last || events.length < page) break;
          after = last.position;
        }
      });

      // From the start of the log: the rebuild's way (bulk-catch-up.ts), then, with that
      // turned off, batch by batch into the live table, as a projection part of the way behind goes.
      await resetProjection(db, fundingAgenciesProjection);
      // Each timed replay starts with no dirty pages left by what ran before it.
      await pool.query('checkpoint');
      const catchUpSeconds = await timedSeconds(() => catchUp(options, fundingAgenciesProjection, page));
      const afterCatchUp = await countRows(pool);
      await resetProjection(db, fundingAgenciesProjection);
      await pool.query('checkpoint');
      const batchesSeconds = await timedSeconds(() => catchUp({ ...options, bulkCatchUpEvents: Number.POSITIVE_INFINITY }, fundingAgenciesProjection, page));
      const afterBatches = await countRows(pool);
      await pool.query('checkpoint');
      const rebuildSeconds = await timedSeconds(() => rebuildBlueGreen({ ...options, batchSize: page }, fundingAgenciesProjection));
      const afterRebuild = await countRows(pool);

      const rows: Cell[][] = [
        [`eventStore.readAll, pages of ${page.toLocaleString('en-US')}`, read, readSeconds, read / readSeconds, '≥100,000/s', bareRead.perSecond, ratio(read / readSeconds, bareRead.perSecond), ''],
        [`catchUp after resetProjection (batch ${page.toLocaleString('en-US')})`, total, catchUpSeconds, total / catchUpSeconds, '≥50,000/s', replay, ratio(total / catchUpSeconds, replay), `${afterCatchUp.toLocaleString('en-US')} rows`],
        [`  the same, batch by batch into the live table`, total, batchesSeconds, total / batchesSeconds, '—', replay, ratio(total / batchesSeconds, replay), `${afterBatches.toLocaleString('en-US')} rows`],
        [`rebuildBlueGreen (batch ${page.toLocaleString('en-US')})`, total, rebuildSeconds, total / rebuildSeconds, '≥50,000/s', replay, ratio(total / rebuildSeconds, replay), `${afterRebuild.toLocaleString('en-US')} rows`],
      ];
      printTable(
        `Replay of funding-agencies over ${total.toLocaleString('en-US')} events (limits: bare log read ${Math.round(bareRead.perSecond).toLocaleString('en-US')} events/s, first/last batch ${bareRead.firstBatchMs.toFixed(1)}/${bareRead.lastBatchMs.toFixed(1)} ms; json_populate_recordset insert ${Math.round(bareInsert.perSecond).toLocaleString('en-US')} rows/s with all indexes, ${Math.round(pkOnly.perSecond).toLocaleString('en-US')} primary key only; limit = read + insert per event, all indexes; ${Math.round(replayLimit(bareRead.perSecond, pkOnly.perSecond)).toLocaleString('en-US')}/s primary key only)`,
        ['what', 'events', 's', 'events/s', 'target', 'limit/s', 'ratio', 'read model after'],
        rows,
      );
    } finally {
      await pool.end();
    }
  });
}

async function countRows(pool: ReturnType<typeof createPool>): Promise<number> {
  const { rows } = await pool.query<{ n: string }>('select count(*) as n from funding_agencies');
  return Number(rows[0]?.n ?? 0);
}
