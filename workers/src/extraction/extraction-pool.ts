import { Worker } from 'node:worker_threads';
import type { ExtractionResult } from './extract-metadata.ts';
import type { ExtractionInput } from './run-extraction.ts';

export type WorkerRequest = { readonly id: number; readonly input: ExtractionInput };
export type WorkerMessage =
  | { kind: 'ready' }
  | { kind: 'progress'; id: number; metadata: Record<string, unknown> }
  | { kind: 'done'; id: number; result: ExtractionResult };

// A plain .mjs entry that registers tsx in the worker before importing the TypeScript body:
// the sources run without a build step, and module hooks of the parent (tsx, vitest) do not
// carry over to a worker on their own.
const workerEntry = new URL('./extraction-worker.bootstrap.mjs', import.meta.url);

/** Workers run this many extractions, then are replaced: what one file left in a heap does not stay. */
const jobsPerWorker = 200;

type Job = { readonly input: ExtractionInput; readonly timeoutMs: number; readonly resolve: (result: ExtractionResult) => void };
type Slot = { readonly worker: Worker; jobs: number; busy: boolean; readonly started: Promise<void> };

/**
 * Extraction threads kept between files (docs/storage.md): starting a thread and loading
 * the parsers costs about 0.2 s, the extraction of a small file a few milliseconds. At most
 * `size` run at once, each with the heap limit; one that runs past its time or its heap is
 * terminated and replaced, so a hostile file still ends as a failed result, never a hang.
 */
export function createExtractionPool(options: { size: number; maxMemoryMb: number }) {
  const young = Math.min(64, Math.max(4, Math.floor(options.maxMemoryMb / 8)));
  const slots = new Set<Slot>();
  const queue: Job[] = [];
  let nextId = 0;

  function spawn(): Slot {
    const worker = new Worker(workerEntry, {
      name: 'metadata-extraction',
      // The parent's flags (a tsx loader, an inspector) are not the worker's business.
      execArgv: [],
      resourceLimits: { maxYoungGenerationSizeMb: young, maxOldGenerationSizeMb: options.maxMemoryMb - young },
    });
    // An idle pool never keeps the process alive.
    worker.unref();
    const started = new Promise<void>((resolve, reject) => {
      const onMessage = (message: WorkerMessage) => {
        if (message.kind !== 'ready') return;
        worker.off('message', onMessage);
        resolve();
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`extraction worker exited with code ${code} while starting`)));
    });
    started.catch(() => undefined);
    const slot: Slot = { worker, jobs: 0, busy: false, started };
    worker.once('exit', () => slots.delete(slot));
    slots.add(slot);
    return slot;
  }

  function retire(slot: Slot): void {
    slots.delete(slot);
    void slot.worker.terminate();
  }

  function next(): void {
    const job = queue[0];
    if (!job) return;
    let slot = [...slots].find((s) => !s.busy);
    if (!slot && slots.size < options.size) {
      try {
        slot = spawn();
      } catch (error) {
        queue.shift();
        job.resolve({ status: 'failed', error: `extraction worker could not start: ${(error as Error).message}`, metadata: {} });
        next();
        return;
      }
    }
    if (!slot) return;
    queue.shift();
    run(slot, job);
  }

  function run(slot: Slot, job: Job): void {
    slot.busy = true;
    slot.jobs += 1;
    const id = (nextId += 1);
    let metadata: Record<string, unknown> = {};
    let settled = false;
    const finish = (result: ExtractionResult, healthy: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      slot.worker.off('message', onMessage);
      slot.worker.off('error', onError);
      slot.worker.off('exit', onExit);
      if (healthy && slot.jobs < jobsPerWorker) slot.busy = false;
      else retire(slot);
      job.resolve(result);
      next();
    };
    const timer = setTimeout(() => finish({ status: 'failed', error: `extraction timed out after ${job.timeoutMs} ms`, metadata }, false), job.timeoutMs);
    const onMessage = (message: WorkerMessage) => {
      if (message.kind === 'progress' && message.id === id) metadata = message.metadata;
      if (message.kind === 'done' && message.id === id) finish(message.result, true);
    };
    const onError = (error: Error & { code?: string }) =>
      finish({ status: 'failed', error: error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'extraction ran out of memory' : `extraction worker failed: ${error.message}`, metadata }, false);
    const onExit = (code: number) => finish({ status: 'failed', error: `extraction worker exited with code ${code} before answering`, metadata }, false);
    slot.worker.on('message', onMessage);
    slot.worker.once('error', onError);
    slot.worker.once('exit', onExit);
    // A worker still starting takes the job once it is ready; the timer runs from now.
    slot.started.then(
      () => {
        if (!settled) slot.worker.postMessage({ id, input: job.input } satisfies WorkerRequest);
      },
      (error: unknown) => onError(error as Error & { code?: string }),
    );
  }

  return {
    extract(input: ExtractionInput, timeoutMs: number): Promise<ExtractionResult> {
      return new Promise((resolve) => {
        queue.push({ input, timeoutMs, resolve });
        next();
      });
    },
    /** Stops every worker (idle workers never hold the process open anyway). */
    async close(): Promise<void> {
      await Promise.all([...slots].map((s) => s.worker.terminate()));
      slots.clear();
    },
  };
}

export type ExtractionPool = ReturnType<typeof createExtractionPool>;
