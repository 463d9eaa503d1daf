/**
 * Cairn's side of /work/shared/peers/run-emmett.sh: the same phases, payloads, writers and
 * durations, on our `createPostgresEventStore` in scratch databases; JSON lines on stdout.
 *   npx tsx bench/src/peers/cairn-peer.ts [--duration 10] [--read-log 100000] [--pool-max 32]
 */
import { parseArgs } from 'node:util';
import { createPool, createPostgresEventStore, migrate, upcastEvent } from '@cairn/platform';
import type pg from 'pg';
import { withScratchDatabase } from '../scratch-database.ts';
import { appendPhases, fillLog, readPhase } from './peer-appends.ts';
import { deliveryCheck } from './peer-delivery.ts';
import { out } from './peer-output.ts';

const { values } = parseArgs({ options: { duration: { type: 'string', default: '10' }, 'read-log': { type: 'string', default: '100000' }, 'pool-max': { type: 'string', default: '32' } } });
const seconds = Math.min(30, Number(values.duration));
const readLog = Number(values['read-log']);
const poolMax = Number(values['pool-max']);

async function onStore<T>(label: string, work: (pool: pg.Pool, store: ReturnType<typeof createPostgresEventStore>) => Promise<T>): Promise<T> {
  return withScratchDatabase(label, async (url) => {
    const pool = createPool(url, poolMax);
    try {
      await migrate(pool);
      return await work(pool, createPostgresEventStore(pool, upcastEvent, url));
    } finally {
      await pool.end();
    }
  });
}

await onStore('peer', async (pool, store) => {
  const { rows } = await pool.query<{ v: string }>('select version() as v');
  out({ test: 'env', node: process.version, pg: rows[0]?.v, pool_max: poolMax, duration_s: seconds });
  await appendPhases(store, seconds);
  // Emmett's --reset empties the store before the read phase: a fresh database does the same here.
});
await onStore('peer_read', async (pool, store) => {
  const total = await fillLog(pool, store, readLog);
  await readPhase(store, total, 1000);
});
for (const perAppend of [1, 10]) {
  await onStore('peer_delivery', (_, store) => deliveryCheck(store, { writers: 8, perAppend, seconds, batch: 1000 }));
}
process.exit(0);
