/**
 * `npm run bench`: figures for this machine, printed; nothing is asserted. Scratch
 * databases on the local PostgreSQL (BENCH_DATABASE_URL); BENCH_SCALE multiplies counts.
 */
import { eventStoreBenchmark } from './event-store.bench.ts';
import { httpBenchmark } from './http.bench.ts';

const scale = Number(process.env['BENCH_SCALE'] ?? '1');
const only = process.argv[2];
console.log(`Cairn benchmarks (scale ${scale})`);
if (!only || only === 'events') await eventStoreBenchmark(scale);
if (!only || only === 'http') await httpBenchmark(scale);
process.exit(0);
