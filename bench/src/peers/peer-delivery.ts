import { randomUUID } from 'node:crypto';
import type { EventStore, GlobalPosition } from '@cairn/platform';
import { comparePositions, startOfLog } from '@cairn/platform';
import { spread } from '../stats.ts';
import { assetRegistered, batchOf } from './peer-payloads.ts';
import { out, r2, sleep } from './peer-output.ts';

/**
 * Emmett's delivery check, ours: `writers` append `perAppend`-event batches to new streams
 * for `seconds` while a follower pages `readAll` from the start of the log (batch `batch`,
 * 50 ms pause when a page is empty, as Emmett's default pulling); then a drain until every
 * acknowledged event was delivered (on an empty log: the caller gives a fresh database) or 3 s pass without progress. Counts duplicated,
 * never-delivered and unexpected events, and positions that did not increase.
 */
export async function deliveryCheck(store: EventStore, options: { writers: number; perAppend: number; seconds: number; batch: number }): Promise<void> {
  const acked = new Map<string, number>();
  const delivered = new Map<string, number>();
  let deliveries = 0;
  let notIncreasing = 0;
  let following = true;
  let followerError: string | null = null;

  const follower = (async () => {
    let after: GlobalPosition = startOfLog;
    while (following) {
      const events = await store.readAll(after, options.batch);
      for (const e of events) {
        deliveries += 1;
        if (comparePositions(e.position, after) <= 0) notIncreasing += 1;
        after = e.position;
        if (!delivered.has(e.id)) delivered.set(e.id, performance.now());
      }
      if (events.length === 0) await sleep(50);
    }
  })().catch((error: unknown) => {
    followerError = error instanceof Error ? error.message : String(error);
  });

  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const end = started + options.seconds * 1000;
  await Promise.all(
    Array.from({ length: options.writers }, async () => {
      while (performance.now() < end) {
        const id = randomUUID();
        const events = options.perAppend === 1 ? [assetRegistered(id)] : batchOf(id, options.perAppend);
        const at = performance.now();
        try {
          await store.appendToStream(`asset-${id}`, events, { expectedVersion: 'any' });
          const now = performance.now();
          latencies.push(now - at);
          for (const e of events) acked.set(e.id, now);
        } catch {
          errors += 1;
        }
      }
    }),
  );
  const writeSeconds = (performance.now() - started) / 1000;

  const drainStart = performance.now();
  let lastCount = -1;
  let lastChange = drainStart;
  let drainEnded = 'cap';
  while (performance.now() - drainStart < 150_000) {
    if ([...acked.keys()].every((k) => delivered.has(k))) {
      drainEnded = 'all_delivered';
      break;
    }
    if (delivered.size !== lastCount) {
      lastCount = delivered.size;
      lastChange = performance.now();
    }
    if (performance.now() - lastChange > 3000) {
      drainEnded = 'no_progress_3s';
      break;
    }
    await sleep(50);
  }
  const drainSeconds = (performance.now() - drainStart) / 1000;
  following = false;
  await follower;

  let missing = 0;
  const lag: number[] = [];
  for (const [k, at] of acked) {
    const got = delivered.get(k);
    if (got === undefined) missing += 1;
    else lag.push(Math.max(0, got - at));
  }
  const unexpected = [...delivered.keys()].filter((k) => !acked.has(k)).length;
  const append = spread(latencies);
  const ackToDelivery = spread(lag);
  out({
    test: 'delivery_readAll_follower',
    reader: `readAll follower, batch ${options.batch}, 50 ms pause when empty`,
    writers: options.writers,
    events_per_append: options.perAppend,
    read_batch: options.batch,
    write_s: r2(writeSeconds),
    appends: latencies.length,
    append_errors: errors,
    events_appended: acked.size,
    write_events_per_s: r2(acked.size / writeSeconds),
    append_p50_ms: r2(append.p50),
    append_p99_ms: r2(append.p99),
    deliveries,
    distinct_delivered: delivered.size,
    duplicates: deliveries - delivered.size,
    never_delivered: missing,
    unexpected,
    position_not_increasing: notIncreasing,
    drain_s: r2(drainSeconds),
    drain_ended: drainEnded,
    ack_to_delivery_p50_ms: r2(ackToDelivery.p50),
    ack_to_delivery_p99_ms: r2(ackToDelivery.p99),
    ...(followerError ? { follower_error: followerError } : {}),
  });
}
