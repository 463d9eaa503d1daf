import type { OperationResult } from '@cairn/platform';

type Entry = { readonly result: OperationResult; readonly bytes: number };

/**
 * Answers of reads, valid for one database snapshot (docs/read-cache.md). PostgreSQL's
 * `pg_current_snapshot()` changes whenever any transaction takes a transaction id or
 * commits; two equal snapshots see exactly the same rows. An answer computed entirely
 * between two readings of the same snapshot is therefore what the read would answer again
 * for as long as the snapshot stays the same, and no longer: when it moves, every entry
 * is dropped at once (a snapshot never comes back). Least recently used entries go first
 * past `maxBytes`.
 */
export class ReadCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private snapshot = '';
  hits = 0;
  misses = 0;

  readonly maxBytes: number;
  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** The answer stored for `key` under this snapshot. */
  get(key: string, snapshot: string): OperationResult | undefined {
    this.observe(snapshot);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Most recently used last: eviction takes the Map's first entries.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.result;
  }

  /**
   * Keeps `result` for `key` when it was computed wholly under `snapshot` (the one still
   * current); a JSON text is kept encoded, as it will be sent.
   */
  set(key: string, snapshot: string, answer: OperationResult, bytes: number): void {
    this.observe(snapshot);
    if (bytes > this.maxBytes / 4) return;
    const { rawJson, ...rest } = answer;
    const result: OperationResult = rawJson === undefined ? answer : { ...rest, rawJsonBytes: Buffer.from(rawJson) };
    const old = this.entries.get(key);
    if (old) this.bytes -= old.bytes;
    this.entries.delete(key);
    this.entries.set(key, { result, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private observe(snapshot: string): void {
    if (snapshot === this.snapshot) return;
    this.snapshot = snapshot;
    this.entries.clear();
    this.bytes = 0;
  }
}

/** What an answer weighs in the cache: its body's length, near enough. */
export const answerBytes = (result: OperationResult) =>
  256 + (result.rawJson?.length ?? (result.body === undefined ? 0 : JSON.stringify(result.body).length)) * 2;
