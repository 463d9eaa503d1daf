import { Worker } from 'node:worker_threads';
import type { ExtractionHints } from './media-type.ts';
import type { ExtractionInput } from './run-extraction.ts';

export type ExtractionResult =
  | { status: 'succeeded'; metadata: Record<string, unknown> }
  | { status: 'failed'; error: string; metadata: Record<string, unknown> };

/**
 * `timeoutMs` bounds the whole extraction, the worker's start included (about 0.2 s);
 * `maxMemoryMb` bounds the worker's JavaScript heap; `maxBytesRead` bounds what a
 * streaming count reads (default 512 MiB) — past it the section says `truncated: true`.
 */
export type ExtractionLimits = { timeoutMs: number; maxMemoryMb: number; maxBytesRead?: number };

export type { ExtractionHints };

export const defaultMaxBytesRead = 512 * 1024 * 1024;
/** Below this the worker cannot load its own code. */
export const minMemoryMb = 32;

const mebibyte = 1024 * 1024;

// A plain .mjs entry that registers tsx in the worker before importing the TypeScript body:
// the sources run without a build step, and module hooks of the parent (tsx, vitest) do not
// carry over to a worker on their own.
const workerEntry = new URL('./extraction-worker.bootstrap.mjs', import.meta.url);

export type WorkerMessage = { kind: 'progress'; metadata: Record<string, unknown> } | { kind: 'done'; result: ExtractionResult };

/**
 * Extracts metadata from a local file (the caller downloads remote content to a temporary
 * file first) in a worker thread of its own, stopped when it runs past `timeoutMs` or out
 * of its heap. Never throws for a bad, hostile or missing file and never hangs: every
 * outcome is a result, and a failed one carries the metadata found before the failure.
 * Throws only for limits that make no sense (a programming error).
 */
export async function extractMetadata(filePath: string, hints: ExtractionHints, limits: ExtractionLimits): Promise<ExtractionResult> {
  checkLimits(limits);
  const maxBytesRead = limits.maxBytesRead ?? defaultMaxBytesRead;
  const input: ExtractionInput = {
    filePath,
    hints: { filename: hints.filename, declaredContentType: hints.declaredContentType },
    maxBytesRead,
    // A whole-file parser's input buffer lies outside the heap that resourceLimits bounds, so it gets the same budget again.
    maxBytesInMemory: Math.min(maxBytesRead, limits.maxMemoryMb * mebibyte),
  };
  const young = Math.min(64, Math.max(4, Math.floor(limits.maxMemoryMb / 8)));

  let worker: Worker;
  try {
    worker = new Worker(workerEntry, {
      name: 'metadata-extraction',
      workerData: input,
      // The parent's flags (a tsx loader, an inspector) are not the worker's business.
      execArgv: [],
      resourceLimits: { maxYoungGenerationSizeMb: young, maxOldGenerationSizeMb: limits.maxMemoryMb - young },
    });
  } catch (error) {
    return { status: 'failed', error: `extraction worker could not start: ${(error as Error).message}`, metadata: {} };
  }

  return new Promise<ExtractionResult>((resolve) => {
    let metadata: Record<string, unknown> = {};
    let settled = false;
    const finish = (result: ExtractionResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
      // Also after a result: the worker may still hold open file handles.
      void worker.terminate();
    };
    const fail = (error: string): void => finish({ status: 'failed', error, metadata });
    const timer = setTimeout(() => fail(`extraction timed out after ${limits.timeoutMs} ms`), limits.timeoutMs);

    worker.on('message', (message: WorkerMessage) => {
      if (message.kind === 'progress') metadata = message.metadata;
      else finish(message.result);
    });
    worker.on('error', (error: Error & { code?: string }) => {
      fail(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'extraction ran out of memory' : `extraction worker failed: ${error.message}`);
    });
    worker.on('exit', (code) => fail(`extraction worker exited with code ${code} before answering`));
  });
}

function checkLimits(limits: ExtractionLimits): void {
  if (!(Number.isFinite(limits.timeoutMs) && limits.timeoutMs > 0)) throw new RangeError(`timeoutMs must be a positive number, not ${limits.timeoutMs}`);
  if (!(Number.isInteger(limits.maxMemoryMb) && limits.maxMemoryMb >= minMemoryMb)) {
    throw new RangeError(`maxMemoryMb must be an integer of at least ${minMemoryMb}, not ${limits.maxMemoryMb}`);
  }
  if (limits.maxBytesRead !== undefined && !(Number.isSafeInteger(limits.maxBytesRead) && limits.maxBytesRead > 0)) {
    throw new RangeError(`maxBytesRead must be a positive integer, not ${limits.maxBytesRead}`);
  }
}
