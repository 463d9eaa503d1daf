import { createExtractionPool, type ExtractionPool } from './extraction-pool.ts';
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

/** Extractions that run at once per process, each in a thread with its heap limit. */
const poolSize = 2;
const pools = new Map<number, ExtractionPool>();
const poolFor = (maxMemoryMb: number): ExtractionPool => {
  let pool = pools.get(maxMemoryMb);
  if (!pool) pools.set(maxMemoryMb, (pool = createExtractionPool({ size: poolSize, maxMemoryMb })));
  return pool;
};

/**
 * Extracts metadata from a local file (the caller downloads remote content to a temporary
 * file first) in a worker thread of the pool (extraction-pool.ts), stopped when it runs past
 * `timeoutMs` or out of its heap. Never throws for a bad, hostile or missing file and never
 * hangs: every outcome is a result, and a failed one carries the metadata found before the
 * failure. Throws only for limits that make no sense (a programming error).
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
  return poolFor(limits.maxMemoryMb).extract(input, limits.timeoutMs);
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
