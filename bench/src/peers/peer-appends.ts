import { randomUUID } from 'node:crypto';
import type { EventStore, GlobalPosition } from '@cairn/platform';
import type pg from 'pg';
import { closedLoop } from '../closed-loop.ts';
import { median } from '../stats.ts';
import { assetRegistered, batchOf, metadataChanged } from './peer-payloads.ts';
import { out, r2 } from './peer-output.ts';

async function timed(test: string, concurrency: number, seconds: number, eventsPerOp: number, op: (worker: number) => Promise<void>): Promise<void> {
  const r = await closedLoop(concurrency, seconds, (worker) => op(worker));
  out({
    test,
    concurrency,
    duration_s: r2(r.seconds),
    ops: r.ops,
    ops_per_s: r2(r.perSecond),
    events_per_s: r2(r.perSecond * eventsPerOp),
    p50_ms: r2(r.p50Ms),
    p99_ms: r2(r.p99Ms),
    errors: r.errors,
    ...(r.lastError ? { last_error: r.lastError } : {}),
  });
}

/** Emmett's phases (a), (a') and (b): same payloads, writers and durations. */
export async function appendPhases(store: EventStore, seconds: number): Promise<void> {
  // Warm-up, not reported, as Emmett's script does.
  const warmEnd = performance.now() + 1500;
  while (performance.now() < warmEnd) {
    const id = randomUUID();
    await store.appendToStream(`asset-${id}`, [assetRegistered(id)], { expectedVersion: 'any' });
  }
  // Emmett appends without a version check by default: 'any' is the same promise.
  for (const c of [1, 16]) {
    await timed('append_1_event_new_stream', c, seconds, 1, async () => {
      const id = randomUUID();
      await store.appendToStream(`asset-${id}`, [assetRegistered(id)], { expectedVersion: 'any' });
    });
  }
  const streams = await Promise.all(
    Array.from({ length: 16 }, async () => {
      const id = randomUUID();
      const r = await store.appendToStream(`asset-${id}`, [assetRegistered(id)], { expectedVersion: 'none' });
      return { name: `asset-${id}`, id, version: r.nextExpectedVersion };
    }),
  );
  await timed('append_1_event_existing_stream_expected_version', 16, seconds, 1, async (w) => {
    const s = streams[w];
    if (!s) return;
    const r = await store.appendToStream(s.name, [metadataChanged(s.id)], { expectedVersion: s.version });
    s.version = r.nextExpectedVersion;
  });
  for (const c of [1, 16]) {
    await timed('append_10_event_batch_new_stream', c, seconds, 10, async () => {
      const id = randomUUID();
      await store.appendToStream(`asset-${id}`, batchOf(id, 10), { expectedVersion: 'any' });
    });
  }
}

/** Emmett's fill: 100-event appends from 8 writers until the log holds `size` events (90 s at most). */
export async function fillLog(pool: pg.Pool, store: EventStore, size: number, report = true): Promise<number> {
  const count = async () => Number((await pool.query<{ n: string }>('select count(*) as n from events')).rows[0]?.n ?? 0);
  const before = await count();
  let added = 0;
  const started = performance.now();
  const end = started + 90_000;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (before + added < size && performance.now() < end) {
        added += 100;
        const id = randomUUID();
        await store.appendToStream(`asset-${id}`, batchOf(id, 100), { expectedVersion: 'any' });
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  if (added > 0 && report) out({ test: 'fill_log_100_event_batches', concurrency: 8, events: added, duration_s: r2(seconds), events_per_s: r2(added / seconds) });
  return count();
}

/** Emmett's (c1) and its batch profile: the whole global log in pages of `batch`, with `readAll`. */
export async function readPhase(store: EventStore, total: number, batch: number): Promise<void> {
  let after: GlobalPosition = { major: 0n, minor: 0n };
  const seen = new Set<string>();
  const batches: number[] = [];
  let read = 0;
  let complete = false;
  const started = performance.now();
  const end = started + 30_000;
  while (performance.now() < end) {
    const at = performance.now();
    const events = await store.readAll(after, batch);
    batches.push(performance.now() - at);
    read += events.length;
    for (const e of events) seen.add(e.id);
    const last = events.at(-1);
    if (!last || events.length < batch) {
      complete = true;
      break;
    }
    after = last.position;
  }
  const seconds = (performance.now() - started) / 1000;
  const sorted = [...batches].sort((a, b) => a - b);
  const full = complete ? batches.slice(0, -1) : batches;
  out({
    test: 'read_all_readAll',
    batch,
    log_events: total,
    events_read: read,
    distinct_read: seen.size,
    duplicates: read - seen.size,
    missing: complete ? total - seen.size : null,
    reached_end: complete,
    duration_s: r2(seconds),
    events_per_s: r2(read / seconds),
    batch_p50_ms: r2(sorted[Math.floor(sorted.length / 2)]),
    batch_p99_ms: r2(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]),
    first10_median_ms: r2(median(full.slice(0, 10))),
    last10_median_ms: r2(median(full.slice(-10))),
    last_over_first: r2(median(full.slice(-10)) / median(full.slice(0, 10))),
  });
}
