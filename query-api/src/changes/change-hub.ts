import { comparePositions, httpErrors, type ChangeStreamSettings, type GlobalPosition, type Logger } from '@cairn/platform';
import { readerStandings } from '@cairn/projections';
import type { ChangeFeedDeps } from './read-changes.ts';
import { judgeableBatch, readFeedLog } from './read-changes.ts';
import { deliverChanges } from './deliver-changes.ts';
import type { ChangeFollower } from './change-follower.ts';

export type ChangeHubDeps = ChangeFeedDeps & { readonly settings: ChangeStreamSettings; readonly logger?: Logger | undefined };

/** Events read per batch by the shared reader. */
const batchEvents = 1000;
/** Followers' principals are read again at most this often (a membership change counts within it). */
const principalsMaxAgeMs = 1000;

/**
 * The one log reader of a process for every live follower (docs/changes.md): it reads each
 * batch of the log once, reads who may see its resources once, and judges it for each
 * follower in memory with that follower's principals. It runs while it has followers; it
 * is woken by the store's append signal (LISTEN/NOTIFY on PostgreSQL) and reads at least
 * every `pollMs` besides. A follower joins once it has caught up on its own to where the
 * reader stands, so none misses a batch between the two.
 */
export class ChangeHub {
  private readonly deps: ChangeHubDeps;
  private readonly live = new Set<ChangeFollower>();
  /** Every open stream, catching up or live: what a shutdown ends. */
  private readonly streams = new Set<ChangeFollower>();
  /** Streams open per caller, live or catching up: what the 429 counts. */
  private readonly openPerCaller = new Map<string, number>();
  private open = 0;
  private running = false;
  private closed = false;
  private position: GlobalPosition | null = null;
  private wake: (() => void) | null = null;
  private woken = false;
  private principalsReadAt = 0;
  /** After a wake-up, how long until the next look: growing from 10 ms (see run). */
  private retryMs: number | null = null;
  private stepping = false;
  private afterStep: (() => void)[] = [];

  constructor(deps: ChangeHubDeps) {
    this.deps = deps;
  }

  get settings(): ChangeStreamSettings {
    return this.deps.settings;
  }

  /** Counts a new stream of this caller, or refuses it (429) past either bound. */
  reserve(userId: string): () => void {
    const { streamsPerCaller, streamsPerProcess } = this.deps.settings;
    if (this.closed) throw httpErrors.unavailable('shutting_down', 'The service is shutting down; reconnect shortly.');
    const mine = this.openPerCaller.get(userId) ?? 0;
    if (mine >= streamsPerCaller || this.open >= streamsPerProcess) throw httpErrors.tooManyRequests(5);
    this.openPerCaller.set(userId, mine + 1);
    this.open += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open -= 1;
      const left = (this.openPerCaller.get(userId) ?? 1) - 1;
      if (left <= 0) this.openPerCaller.delete(userId);
      else this.openPerCaller.set(userId, left);
    };
  }

  /**
   * Takes a follower into the shared reader if it stands at or past the reader's position
   * (synchronously: no batch can pass between the check and the join); false means it must
   * catch up further on its own first.
   */
  join(follower: ChangeFollower): boolean {
    if (this.closed || follower.isEnded) return false;
    // Mid-batch, the reader's position is about to move past what the batch holds, and the
    // batch's access was read without this follower's filter: it joins between batches.
    if (this.stepping) return false;
    if (this.running && this.position && comparePositions(follower.position, this.position) < 0) return false;
    this.live.add(follower);
    if (!this.running) {
      this.position = follower.position;
      this.running = true;
      void this.run();
    }
    return true;
  }

  /** Resolves when the batch being read, if any, is delivered: when a refused join may be tried again. */
  betweenBatches(): Promise<void> {
    return this.stepping ? new Promise((resolve) => this.afterStep.push(resolve)) : Promise.resolve();
  }

  /** A stream opened (before it catches up): a shutdown ends it too. */
  track(follower: ChangeFollower): void {
    if (this.closed) follower.end();
    else this.streams.add(follower);
  }

  leave(follower: ChangeFollower): void {
    this.live.delete(follower);
    this.streams.delete(follower);
  }

  get followerCount(): number {
    return this.live.size;
  }

  /** Streams holding a slot, catching up or live. */
  get openStreams(): number {
    return this.open;
  }

  /** Shutdown: every stream ends (clients reconnect elsewhere with Last-Event-ID); no new one is taken. */
  close(): void {
    this.closed = true;
    for (const follower of [...this.streams, ...this.live]) follower.end();
    this.live.clear();
    this.streams.clear();
    this.signal();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private signal(): void {
    this.woken = true;
    this.retryMs = 10;
    this.wake?.();
  }

  private async sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = null;
    this.woken = false;
  }

  private async run(): Promise<void> {
    const stopWatching = await this.deps.eventStore.watch(() => this.signal()).catch((error: unknown) => {
      this.deps.logger?.warn('the change feed could not watch the log; it polls', { error: String(error) });
      return null;
    });
    try {
      while (this.live.size > 0 && !this.closed) {
        let full = false;
        this.stepping = true;
        try {
          full = await this.step();
        } catch (error) {
          // The database gone for a moment: followers keep their streams (and heartbeats), the reader tries again.
          this.deps.logger?.warn('the change feed could not read the log', { error: String(error) });
        } finally {
          this.stepping = false;
          for (const resolve of this.afterStep.splice(0)) resolve();
        }
        if (full) continue;
        // A change announced by a wake-up stays out of reach while an older transaction
        // anywhere in the cluster is open (docs/event-store.md): look again soon, then at
        // growing intervals up to the poll, as the projector does.
        const pollMs = this.deps.settings.pollMs;
        const delay = this.retryMs !== null && this.retryMs < pollMs ? this.retryMs : pollMs;
        this.retryMs = this.retryMs !== null && this.retryMs < pollMs ? this.retryMs * 2 : null;
        await this.sleep(delay);
      }
    } finally {
      // No await between the loop's last check and this: a follower joining now starts a new run.
      this.running = false;
      await stopWatching?.().catch(() => undefined);
    }
  }

  /** One batch for every live follower; true when the log held more at once. */
  private async step(): Promise<boolean> {
    const from = this.position;
    if (!from) return false;
    const page = await readFeedLog(this.deps, from, batchEvents);
    const followers = [...this.live].filter((f) => !f.isEnded);
    if (page.events.length > 0) {
      const filtered = followers.flatMap((f) => (f.filters.collectionId ? [f.filters.collectionId] : []));
      const batch = await judgeableBatch(this.deps, page.events, filtered);
      await this.refreshPrincipals(followers);
      if (batch.access) {
        const access = batch.access;
        for (const follower of followers) {
          if (follower.isEnded) continue;
          const unseen = batch.candidates.filter((c) => comparePositions(c.position, follower.position) > 0);
          follower.deliver(deliverChanges(unseen, access, follower.reader, follower.filters), page.through);
        }
      }
    }
    for (const follower of followers) follower.deliver([], page.through);
    if (comparePositions(page.through, from) > 0) this.position = page.through;
    return page.full;
  }

  /**
   * Principals change with memberships, and a user may be deactivated or lose administrator
   * rights, or their token be revoked, while following: read again for every follower, at
   * most once a second, in one statement. A follower no longer active (or gone), or whose
   * credentials no longer hold, is ended before this batch is judged.
   */
  private async refreshPrincipals(followers: readonly ChangeFollower[]): Promise<void> {
    if (Date.now() - this.principalsReadAt < principalsMaxAgeMs) return;
    // Credentials are checked from the auth cache (a revocation evicts them within a second): no database work for those still good.
    const [byUser, signedIn] = await Promise.all([
      readerStandings(this.deps.db, followers.map((f) => f.userId)),
      Promise.all(followers.map((f) => f.stillSignedIn?.() ?? true)),
    ]);
    this.principalsReadAt = Date.now();
    for (const [n, follower] of followers.entries()) {
      const standing = byUser.get(follower.userId);
      if (!standing?.isActive || !signedIn[n]) follower.end();
      else follower.reader = { ...follower.reader, principals: standing.principals, isSystemAdmin: standing.isSystemAdmin };
    }
  }
}
