import { PassThrough } from 'node:stream';
import { once } from 'node:events';
import type { Change } from '@cairn/contract';
import { comparePositions, encodePosition, type GlobalPosition } from '@cairn/platform';
import type { ChangeFilters, ChangeReader } from './deliver-changes.ts';

/** A follower whose client reads slower than changes come is ended past this much unsent text: it resumes with Last-Event-ID. */
export const maxFollowerBacklogBytes = 1_048_576;

/** One `change` event of the stream: its id is its position, so Last-Event-ID resumes after it. */
export const changeFrame = (change: Change) => `id: ${change.position}\nevent: change\ndata: ${JSON.stringify(change)}\n\n`;

/**
 * A heartbeat comment, with the position scanned to as the last event id: an id line with
 * no data dispatches no event but moves EventSource's Last-Event-ID, so a reconnect does
 * not scan again what was judged already (nothing in it was the follower's).
 */
export const heartbeatFrame = (position: GlobalPosition) => `: heartbeat\nid: ${encodePosition(position)}\n\n`;

/**
 * One client following the feed over Server-Sent Events: its stream (the route's answer
 * body), who it is, what it asked for, and the position up to which it has been served.
 * Ending it (client gone, shutdown, its time up, too slow) ends the stream and calls
 * `onEnd` once.
 */
export class ChangeFollower {
  readonly body = new PassThrough();
  readonly userId: string;
  reader: ChangeReader;
  readonly filters: ChangeFilters;
  position: GlobalPosition;
  /** Whether its credentials still hold (a revoked token, an ended session: the stream ends). */
  readonly stillSignedIn: (() => Promise<boolean>) | undefined;
  private ended = false;
  private readonly onEnd: () => void;

  constructor(options: { userId: string; reader: ChangeReader; filters: ChangeFilters; position: GlobalPosition; onEnd: () => void; stillSignedIn?: (() => Promise<boolean>) | undefined }) {
    this.userId = options.userId;
    this.reader = options.reader;
    this.filters = options.filters;
    this.position = options.position;
    this.stillSignedIn = options.stillSignedIn;
    this.onEnd = options.onEnd;
    // The client went away (the response's pipeline destroys the body), or the body ended.
    this.body.once('close', () => this.finish());
  }

  get isEnded(): boolean {
    return this.ended || this.body.destroyed;
  }

  /**
   * Writes without waiting (the shared reader must never wait for one client). A client far
   * behind has its stream cut, not ended: an ended stream would keep its backlog, and its
   * connection, until the client read it all or the socket's idle timeout, while its slot
   * was already given back for another stream to fill. It resumes from its last event.
   */
  send(text: string): void {
    if (this.isEnded) return;
    this.body.write(text);
    if (this.body.writableLength > maxFollowerBacklogBytes) this.body.destroy();
  }

  /** Writes and waits while the client reads (a follower catching up on its own reads at its own pace). */
  async sendPaced(text: string): Promise<void> {
    if (this.isEnded) return;
    if (!this.body.write(text) && !this.isEnded) await Promise.race([once(this.body, 'drain'), once(this.body, 'close')]);
  }

  /** The changes of a batch scanned to `through`: those after this follower's position are sent. */
  deliver(changes: readonly Change[], through: GlobalPosition): void {
    for (const change of changes) this.send(changeFrame(change));
    if (comparePositions(through, this.position) > 0) this.position = through;
  }

  heartbeat(): void {
    this.send(heartbeatFrame(this.position));
  }

  end(): void {
    if (this.ended) return;
    this.body.end();
    this.finish();
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd();
  }
}
