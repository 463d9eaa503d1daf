import type { Readable } from 'node:stream';
import { comparePositions, type GlobalPosition, type Logger } from '@cairn/platform';
import { readerStandings } from '@cairn/projections';
import { ChangeFollower, changeFrame } from './change-follower.ts';
import type { ChangeHub } from './change-hub.ts';
import type { ChangeFilters } from './deliver-changes.ts';
import { readChanges, type ChangeCaller, type ChangeFeedDeps } from './read-changes.ts';

export type ChangeStreamRequest = {
  readonly caller: ChangeCaller;
  readonly after: GlobalPosition;
  readonly filters: ChangeFilters;
  readonly deniedProjectIds: readonly string[];
  /** Whether the credentials the stream was opened with still hold (checked with the caller's standing, once a second). */
  readonly stillSignedIn?: (() => Promise<boolean>) | undefined;
};

/** Changes per page while a follower catches up on its own. */
const catchUpPage = 1000;

/**
 * Opens one Server-Sent Events stream of the feed (docs/changes.md). The caller's slot is
 * taken first (429 past the bounds); then the follower catches up on its own, page by
 * page at its client's pace, until it stands where the process's shared reader stands,
 * and joins it. The stream ends on client abort, shutdown, after the longest a stream
 * lasts, when its client falls too far behind, and on an error; each time it gives its
 * slot back and stops its timers.
 */
export function openChangeStream(deps: ChangeFeedDeps & { readonly hub: ChangeHub; readonly logger?: Logger | undefined }, request: ChangeStreamRequest): Readable {
  const { hub } = deps;
  const release = hub.reserve(request.caller.userId);
  const timers: NodeJS.Timeout[] = [];
  const follower: ChangeFollower = new ChangeFollower({
    userId: request.caller.userId,
    reader: { isSystemAdmin: request.caller.isSystemAdmin, principals: [], deniedProjectIds: new Set(request.deniedProjectIds) },
    filters: request.filters,
    position: request.after,
    stillSignedIn: request.stillSignedIn,
    onEnd: () => {
      hub.leave(follower);
      release();
      for (const timer of timers) clearTimeout(timer);
    },
  });
  hub.track(follower);
  const { heartbeatMs, streamMaxSeconds } = hub.settings;
  timers.push(setInterval(() => follower.heartbeat(), heartbeatMs).unref());
  // The credentials were checked when the stream opened: a client reconnects (Last-Event-ID) to show them again.
  timers.push(setTimeout(() => follower.end(), streamMaxSeconds * 1000).unref());
  // How long EventSource waits before reconnecting, and a first line so the client sees the stream is open.
  follower.send(': change feed\nretry: 2000\n\n');

  // The caller's standing, read again at most once a second while catching up (as the shared
  // reader does): a deactivated caller's stream ends, a demoted administrator's view narrows.
  let principalsReadAt = 0;
  const nextPage = async (after: GlobalPosition) => {
    if (Date.now() - principalsReadAt >= 1000) {
      const [standings, signedIn] = await Promise.all([readerStandings(deps.db, [request.caller.userId]), request.stillSignedIn?.() ?? true]);
      const standing = standings.get(request.caller.userId);
      if (!standing?.isActive || !signedIn) {
        follower.end();
        return { changes: [], next: after, hasMore: false };
      }
      follower.reader = { ...follower.reader, principals: standing.principals, isSystemAdmin: standing.isSystemAdmin };
      principalsReadAt = Date.now();
    }
    const { principals, isSystemAdmin } = follower.reader;
    return readChanges(deps, { caller: { userId: request.caller.userId, isSystemAdmin }, after, limit: catchUpPage, filters: request.filters, deniedProjectIds: request.deniedProjectIds, principals });
  };
  const catchUp = async () => {
    let pending = nextPage(follower.position);
    while (!follower.isEnded) {
      if (hub.isClosed) return follower.end();
      const page = await pending;
      // The next page is read while this one goes to the client.
      if (page.hasMore) {
        pending = nextPage(page.next);
        pending.catch(() => undefined);
      }
      for (const change of page.changes) await follower.sendPaced(changeFrame(change));
      if (comparePositions(page.next, follower.position) > 0) follower.position = page.next;
      if (!page.hasMore) {
        if (hub.join(follower)) return;
        // Refused mid-batch (or the reader is ahead): read on once that batch is delivered.
        await hub.betweenBatches();
        pending = nextPage(follower.position);
        pending.catch(() => undefined);
      }
    }
  };
  catchUp().catch((error: unknown) => {
    // Headers are sent: the stream ends and the client resumes from its last event.
    deps.logger?.warn('a change stream ended on an error while catching up', { error: String(error) });
    follower.end();
  });
  return follower.body;
}
