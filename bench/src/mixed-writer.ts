import { assetDetails, seededRandom } from './asset-data.ts';
import type { keepAliveClient } from './keep-alive-client.ts';
import { spread } from './stats.ts';

export type WriterResult = {
  readonly target: number;
  readonly done: number;
  readonly perSecond: number;
  readonly creates: number;
  readonly changes: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
  /** Ticks skipped because `maxInFlight` writes were still waiting: the service fell behind. */
  readonly skipped: number;
  readonly lastError: string | null;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * An open loop of writes at `rate` per second for `seconds`, as one user: half creates,
 * half changes (title and tags) of assets it created earlier. Open, so that a slow answer
 * does not lower the rate asked for; what the service achieved is what completed.
 */
export async function runWriter(http: ReturnType<typeof keepAliveClient>, token: string, rate: number, seconds: number, maxInFlight = 64): Promise<WriterResult> {
  const random = seededRandom(24);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const created: string[] = [];
  const latencies: number[] = [];
  let creates = 0;
  let changes = 0;
  let errors = 0;
  let skipped = 0;
  let lastError: string | null = null;
  const inFlight = new Set<Promise<void>>();

  const write = async (n: number) => {
    const details = assetDetails(random, 1_000_000 + n);
    const change = created.length > 0 && random() < 0.5;
    const at = performance.now();
    const reply = change
      ? await http.request('PATCH', `/api/assets/${created[Math.floor(random() * created.length)]}/`, headers, JSON.stringify({ title: details.title, tags: details.tags }))
      : await http.request('POST', '/api/assets/', headers, JSON.stringify({ title: details.title, record_type: details.recordType, tags: details.tags, metadata: details.metadata }));
    if (reply.status !== (change ? 200 : 201)) {
      errors += 1;
      lastError = `${change ? 'PATCH' : 'POST'}: ${reply.status} ${reply.body.slice(0, 200)}`;
      return;
    }
    latencies.push(performance.now() - at);
    if (change) changes += 1;
    else {
      creates += 1;
      created.push((JSON.parse(reply.body) as { id: string }).id);
    }
  };

  const started = performance.now();
  for (let i = 0; ; i += 1) {
    const at = started + (i * 1000) / rate;
    if (at >= started + seconds * 1000) break;
    const wait = at - performance.now();
    if (wait > 0) await sleep(wait);
    if (inFlight.size >= maxInFlight) {
      skipped += 1;
      continue;
    }
    const p: Promise<void> = write(i)
      .catch((error: unknown) => {
        errors += 1;
        lastError = error instanceof Error ? error.message : String(error);
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - started) / 1000;
  const { p50, p99 } = spread(latencies);
  return { target: rate, done: latencies.length, perSecond: latencies.length / elapsed, creates, changes, p50Ms: p50, p99Ms: p99, errors, skipped, lastError };
}
