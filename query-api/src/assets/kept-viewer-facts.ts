import type { Caller } from '@cairn/platform';
import { listingViewerFacts, StaleViewerFacts, type KeptFacts, type ReadDb, type ViewerFacts } from '@cairn/projections';

/**
 * Each caller's listing facts (principals, whether any project is restricted, stars counted),
 * kept by the query process for `seconds` after they were read, at most `size` callers,
 * the longest kept dropped first. A kept entry is never trusted: the page's own
 * statements check it in their snapshot (kept-facts.ts in projections) and a page that
 * finds it stale is read again with the facts just read. The age bound only keeps the
 * stars counted roughly current. `seconds` 0 keeps nothing (CAIRN_VIEWER_FACTS_SECONDS).
 */
export class KeptViewerFacts {
  private readonly entries = new Map<string, { readonly facts: ViewerFacts; readonly at: number }>();
  /** Reads served with kept facts that held; reads whose kept facts no longer held (read again); reads that found none kept. */
  readonly counts = { held: 0, stale: 0, read: 0 };

  private readonly seconds: number;
  private readonly size: number;
  private readonly now: () => number;
  private readonly readFacts: (db: ReadDb, userId: string) => Promise<ViewerFacts>;

  constructor(seconds: number, options: { size?: number; now?: () => number; readFacts?: (db: ReadDb, userId: string) => Promise<ViewerFacts> } = {}) {
    this.seconds = seconds;
    this.size = options.size ?? 10_000;
    this.now = options.now ?? (() => performance.now());
    this.readFacts = options.readFacts ?? listingViewerFacts;
  }

  /**
   * Runs `read` with the caller's facts: those kept, checked by its statements, or read
   * now. A read that finds the kept ones stale runs once more with facts read then; a read
   * given facts read for it is not checked, as before facts were kept.
   */
  async withFacts<T>(db: ReadDb, caller: Caller, read: (facts: ViewerFacts) => Promise<T>): Promise<T> {
    const kept = this.keptFor(caller.userId);
    if (kept) {
      try {
        const result = await read(kept);
        this.counts.held += 1;
        return result;
      } catch (error) {
        if (!(error instanceof StaleViewerFacts)) throw error;
        this.counts.stale += 1;
        this.entries.delete(caller.userId);
      }
    } else this.counts.read += 1;
    const facts = await this.readFacts(db, caller.userId);
    this.keep(caller.userId, facts);
    return read(facts);
  }

  private keptFor(userId: string): KeptFacts | undefined {
    const entry = this.entries.get(userId);
    if (!entry) return undefined;
    if (this.now() - entry.at > this.seconds * 1000) {
      this.entries.delete(userId);
      return undefined;
    }
    const { facts } = entry;
    return { ...facts, restricted: facts.restricted ?? true, keptFor: userId };
  }

  private keep(userId: string, facts: ViewerFacts): void {
    if (this.seconds <= 0) return;
    this.entries.delete(userId);
    this.entries.set(userId, { facts, at: this.now() });
    if (this.entries.size > this.size) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}
