import { peerLimits } from './peers/peer-limits.ts';
import { keyOf, runCairn, runEmmett, type PeerLine } from './peers/peer-runs.ts';
import { median } from './stats.ts';
import { printTable, ratio, type Cell } from './table.ts';

type Side = 'emmett' | 'cairn';

const comparisons: readonly { readonly label: string; readonly key: string; readonly metric: string; readonly emmettKey?: string }[] = [
  { label: 'append 1 event, new stream, 1 writer', key: 'append_1_event_new_stream|1|', metric: 'events_per_s' },
  { label: 'append 1 event, new stream, 16 writers', key: 'append_1_event_new_stream|16|', metric: 'events_per_s' },
  { label: 'append 1 event, existing stream, expected version, 16 writers', key: 'append_1_event_existing_stream_expected_version|16|', metric: 'events_per_s' },
  { label: 'append 10-event batch, 1 writer', key: 'append_10_event_batch_new_stream|1|', metric: 'events_per_s' },
  { label: 'append 10-event batch, 16 writers', key: 'append_10_event_batch_new_stream|16|', metric: 'events_per_s' },
  { label: 'append 1 event, 16 writers: p99 ms', key: 'append_1_event_new_stream|16|', metric: 'p99_ms' },
  { label: 'fill: 100-event appends, 8 writers', key: 'fill_log_100_event_batches|8|', metric: 'events_per_s' },
  { label: 'global log read, batch 1,000 (100k log)', key: 'read_all||', metric: 'events_per_s' },
  { label: 'global log read: duplicated', key: 'read_all||', metric: 'duplicates' },
  { label: 'global log read: missing', key: 'read_all||', metric: 'missing' },
  { label: 'log read: last 10 / first 10 batch ms', key: 'read_all||', metric: 'last_over_first', emmettKey: 'read_batch_profile||' },
  { label: 'delivery, 8 writers × 1 event: duplicated', key: 'delivery|8|1', metric: 'duplicates' },
  { label: 'delivery, 8 writers × 1 event: never delivered', key: 'delivery|8|1', metric: 'never_delivered' },
  { label: 'delivery, 8 writers × 10 events: duplicated', key: 'delivery|8|10', metric: 'duplicates' },
  { label: 'delivery, 8 writers × 10 events: never delivered', key: 'delivery|8|10', metric: 'never_delivered' },
  { label: 'delivery, 8 writers × 1 event: appended events/s', key: 'delivery|8|1', metric: 'write_events_per_s' },
];

/**
 * `npm run bench -- peers`: Emmett's PostgreSQL event store (/work/shared/peers/run-emmett.sh)
 * and ours (peers/cairn-peer.ts), alternately, 3 rounds each, on the same PostgreSQL;
 * medians and ratios (Cairn / Emmett). Only a ratio from one sitting means anything.
 */
export async function peersBenchmark(scale: number): Promise<void> {
  const seconds = Math.max(1, Math.round(10 * scale));
  const rounds = Number(process.env['BENCH_PEER_ROUNDS'] ?? '3');
  const runs: Record<Side, PeerLine[][]> = { emmett: [], cairn: [] };
  for (let round = 1; round <= rounds; round += 1) {
    // Alternate who goes first, so neither always meets the other's leftovers (autovacuum, cache).
    const order: Side[] = round % 2 === 1 ? ['emmett', 'cairn'] : ['cairn', 'emmett'];
    for (const side of order) {
      const started = performance.now();
      runs[side].push(side === 'emmett' ? await runEmmett(seconds) : await runCairn(seconds, 100_000));
      console.log(`  round ${round}: ${side} done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
  }
  // Measured once, after the rounds: the same statements with `pg` alone (see peer-limits.ts).
  const bare = await peerLimits(seconds);
  const valueOf = (side: Side, key: string, metric: string): number[] =>
    runs[side].flatMap((lines) => lines.filter((l) => keyOf(l) === key).map((l) => (l[metric] === null || l[metric] === undefined ? Number.NaN : Number(l[metric]))));
  const rows: Cell[][] = comparisons.map(({ label, key, metric, emmettKey }) => {
    const e = valueOf('emmett', emmettKey ?? key, metric);
    const c = valueOf('cairn', key, metric);
    const all = (xs: number[]) => xs.map((x) => (Number.isFinite(x) ? String(x) : '—')).join(' / ');
    const limit = metric === 'events_per_s' ? bare.get(key) : undefined;
    return [label, median(e), median(c), ratio(median(c), median(e)), limit, ratio(median(c), limit), all(e), all(c)];
  });
  printTable(
    `Event store vs Emmett (PostgreSQL), ${rounds} alternated rounds of ${seconds} s phases; medians; bare SQL: one INSERT statement of the same rows, or the bare log read, measured once after the rounds`,
    ['phase', 'Emmett', 'Cairn', 'Cairn/Emmett', 'bare SQL', 'Cairn/bare', 'Emmett rounds', 'Cairn rounds'],
    rows,
  );
  const consumer = valueOf('emmett', 'read_all_consumer_reactor||', 'events_per_s');
  if (consumer.length > 0) console.log(`  Emmett's documented consumer (reactor) reading the same log: ${median(consumer).toFixed(0)} events/s (no Cairn counterpart: our projector is measured by replay)`);
}
