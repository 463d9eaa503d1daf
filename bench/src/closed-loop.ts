import { spread } from './stats.ts';

export type LoopResult = {
  readonly ops: number;
  readonly errors: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly lastError: string | null;
};

/**
 * `concurrency` workers each run `op` back to back for `seconds`: a closed loop, so the
 * rate is what the system sustains at that many requests in flight.
 */
export async function closedLoop(concurrency: number, seconds: number, op: (worker: number, i: number) => Promise<void>): Promise<LoopResult> {
  const latencies: number[] = [];
  let errors = 0;
  let lastError: string | null = null;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = 0; performance.now() < end; i += 1) {
        const at = performance.now();
        try {
          await op(worker, i);
          latencies.push(performance.now() - at);
        } catch (error) {
          errors += 1;
          lastError = error instanceof Error ? error.message : String(error);
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const { p50, p99 } = spread(latencies);
  return { ops: latencies.length, errors, seconds: elapsed, perSecond: latencies.length / elapsed, p50Ms: p50, p99Ms: p99, lastError };
}
