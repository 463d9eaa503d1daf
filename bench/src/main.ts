/**
 * `npm run bench [-- NAME]`: figures for this machine, printed beside their bare-SQL limits;
 * nothing is asserted. Scratch databases on the local PostgreSQL (BENCH_DATABASE_URL);
 * BENCH_SCALE multiplies counts and durations (0.1 for a quick run).
 */
import { assetsBenchmark } from './assets.bench.ts';
import { authBenchmark } from './auth.bench.ts';
import { changesBenchmark } from './changes.bench.ts';
import { collectionListingBenchmark } from './collection-listing.bench.ts';
import { collectionsBenchmark } from './collections.bench.ts';
import { eventStoreBenchmark } from './event-store.bench.ts';
import { httpBenchmark } from './http.bench.ts';
import { limitsBenchmark } from './limits.bench.ts';
import { machineSpeed } from './machine-speed.ts';
import { mixedBenchmark } from './mixed.bench.ts';
import { peersBenchmark } from './peers.bench.ts';
import { replayBenchmark } from './replay.bench.ts';
import { stagesBenchmark } from './stages.bench.ts';
import { standbysBenchmark } from './standbys.bench.ts';
import { startBenchmark } from './start.bench.ts';
import { storageBenchmark } from './storage.bench.ts';
import { uploadsBenchmark } from './uploads.bench.ts';
import { webhooksBenchmark } from './webhooks.bench.ts';

const benchmarks: Record<string, (scale: number) => Promise<void>> = {
  stages: stagesBenchmark,
  limits: limitsBenchmark,
  http: httpBenchmark,
  replay: replayBenchmark,
  peers: peersBenchmark,
  events: eventStoreBenchmark,
  auth: authBenchmark,
  assets: assetsBenchmark,
  storage: storageBenchmark,
  uploads: uploadsBenchmark,
  collections: collectionsBenchmark,
  mixed: mixedBenchmark,
  'collection-listing': collectionListingBenchmark,
  start: startBenchmark,
  changes: changesBenchmark,
  webhooks: webhooksBenchmark,
  standbys: standbysBenchmark,
};

const scale = Number(process.env['BENCH_SCALE'] ?? '1');
const only = process.argv[2];
if (only && !benchmarks[only]) {
  console.error(`unknown benchmark ${only}; one of: ${Object.keys(benchmarks).join(', ')}`);
  process.exit(2);
}
console.log(`Cairn benchmarks (scale ${scale}, ${new Date().toISOString()})`);
console.log(await machineSpeed());
for (const [name, run] of Object.entries(benchmarks)) {
  if (!only || only === name) await run(scale);
}
process.exit(0);
