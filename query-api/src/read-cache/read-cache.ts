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
  /**
   * By database server: the primary's answers and each standby's are kept under their own
   * server's snapshot (docs/consistency.md, "Standbys"), so reads that alternate between
   * servers do not drop each other's answers.
   */
  private readonly servers = new Map<string, { snapshot: string; entries: Map<string, Entry> }>();
  private bytes = 0;
  hits = 0;
  misses = 0;

  readonly maxBytes: number;
  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** The answer stored for `key` under this snapshot (of this server). */
  get(key: string, snapshot: string, server = ''): OperationResult | undefined {
    const entries = this.observe(server, snapshot);
    const entry = entries.get(key);
    if (!entry) return undefined;
    // Most recently used last: eviction takes the Map's first entries.
    entries.delete(key);
    entries.set(key, entry);
    return entry.result;
  }

  /**
   * Keeps `result` for `key` when it was computed wholly under `snapshot` (the one still
   * current); a JSON text is kept encoded, as it will be sent.
   */
  set(key: string, snapshot: string, answer: OperationResult, bytes: number, server = ''): void {
    const entries = this.observe(server, snapshot);
    if (bytes > this.maxBytes / 4) return;
    const { rawJson, ...rest } = answer;
    const result: OperationResult = rawJson === undefined ? answer : { ...rest, rawJsonBytes: Buffer.from(rawJson) };
    const old = entries.get(key);
    if (old) this.bytes -= old.bytes;
    entries.delete(key);
    entries.set(key, { result, bytes });
    this.bytes += bytes;
    for (const { entries: kept } of this.servers.values()) {
      for (const [oldest, entry] of kept) {
        if (this.bytes <= this.maxBytes) return;
        kept.delete(oldest);
        this.bytes -= entry.bytes;
      }
    }
  }

  get size(): { entries: number; bytes: number } {
    let entries = 0;
    for (const server of this.servers.values()) entries += server.entries.size;
    return { entries, bytes: this.bytes };
  }

  private observe(server: string, snapshot: string): Map<string, Entry> {
    const known = this.servers.get(server);
    if (known?.snapshot === snapshot) return known.entries;
    if (known) for (const entry of known.entries.values()) this.bytes -= entry.bytes;
    const fresh = { snapshot, entries: new Map<string, Entry>() };
    this.servers.set(server, fresh);
    return fresh.entries;
  }
}

/** What an answer weighs in the cache: its body's length, near enough. */
export const answerBytes = (result: OperationResult) =>
  256 + (result.rawJson?.length ?? (result.body === undefined ? 0 : JSON.stringify(result.body).length)) * 2;
