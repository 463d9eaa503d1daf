import type { EventMetadata, StoredEventView } from '@cairn/domain';
import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type EventData,
  type ExpectedRevision,
  type JSONType,
  type Position,
  type ReadAllOptions,
  type RecordedEvent as EsdbRecordedEvent,
} from '@eventstore/db-client';
import {
  IdempotencyConflictError,
  WrongExpectedVersionError,
  comparePositions,
  startOfLog,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type GlobalPosition,
  type NewEvent,
  type RecordedEvent,
  type StreamRead,
} from './event-store.ts';

type Upcast = <E extends StoredEventView>(event: E) => E;
type StoredMetadata = EventMetadata & { readonly schemaVersion: number };

const pageSize = 256;

const toGlobal = (position: Position): GlobalPosition => ({ major: position.commit, minor: position.prepare });
const toEsdb = (position: GlobalPosition): Position => ({ commit: position.major, prepare: position.minor });
const isSystem = (event: EsdbRecordedEvent): boolean => event.type.startsWith('$') || event.streamId.startsWith('$');

// EventStoreDB revisions are 0-based; our stream versions are 1-based.
function toExpectedRevision(expected: ExpectedVersion): ExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'none' || expected === 0) return NO_STREAM;
  return BigInt(expected - 1);
}

function toEventData(event: NewEvent): EventData {
  const metadata: StoredMetadata = { schemaVersion: event.schemaVersion, ...event.metadata };
  return jsonEvent({ id: event.id, type: event.type, data: event.data as JSONType, metadata });
}

export function clientEventStoreDbEventStore(connectionString: string, upcast: Upcast): EventStore {
  const client = EventStoreDBClient.connectionString(connectionString);

  const toRecorded = (event: EsdbRecordedEvent): RecordedEvent => {
    const { schemaVersion, ...metadata } = event.metadata as StoredMetadata;
    return upcast({
      id: event.id,
      type: event.type,
      schemaVersion,
      data: event.data,
      metadata,
      streamId: event.streamId,
      streamVersion: Number(event.revision) + 1,
      position: event.position ? toGlobal(event.position) : startOfLog,
      recordedAt: event.created.toISOString(),
    });
  };

  async function readStream(streamId: string): Promise<StreamRead> {
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of client.readStream(streamId, { direction: FORWARDS, fromRevision: START })) {
        if (resolved.event) events.push(toRecorded(resolved.event));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return { version: 0, events: [] };
      throw error;
    }
    return { version: events.at(-1)?.streamVersion ?? 0, events };
  }

  // Pages are read to their end, so no gRPC call is left open.
  async function readAllPage(options: ReadAllOptions): Promise<AllStreamResolvedEvent[]> {
    const page: AllStreamResolvedEvent[] = [];
    for await (const resolved of client.readAll({ ...options, maxCount: pageSize })) page.push(resolved);
    return page;
  }

  /**
   * What an earlier append of these very events stored, judged from `stored` (stream events in
   * order): null when none of them is there, a conflict when only some are, or out of order.
   */
  function matchStored(streamId: string, stored: readonly RecordedEvent[], events: readonly NewEvent[]): AppendResult | null {
    const ids = new Set(events.map((e) => e.id));
    const found = stored.filter((e) => ids.has(e.id));
    const last = found.at(-1);
    if (!last) return null;
    if (found.length !== events.length || found.some((e, i) => e.id !== events[i]?.id)) {
      throw new IdempotencyConflictError(`some of the events of this append to ${streamId} are already stored`);
    }
    return { nextExpectedVersion: last.streamVersion, position: last.position };
  }

  /** The whole stream, for the lookup after a failed or deduplicated append. */
  async function findStored(streamId: string, events: readonly NewEvent[]): Promise<AppendResult | null> {
    return matchStored(streamId, (await readStream(streamId)).events, events);
  }

  /**
   * The lookup before an append: a retry meets its first attempt at the end of the stream, so only
   * the last 2 × batch size + 10 events are read (or the whole stream when it is shorter).
   */
  async function findRecentlyStored(streamId: string, events: readonly NewEvent[]): Promise<AppendResult | null> {
    const maxCount = 2 * events.length + 10;
    const recent: RecordedEvent[] = [];
    try {
      const read = client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount });
      for await (const resolved of read) {
        if (resolved.event) recent.push(toRecorded(resolved.event));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return null;
      throw error;
    }
    // Only part of the batch in a full window: the rest may lie just before it, so look at the whole stream.
    const ids = new Set(events.map((e) => e.id));
    const hits = recent.filter((e) => ids.has(e.id)).length;
    if (hits > 0 && hits < events.length && recent.length === maxCount) return findStored(streamId, events);
    return matchStored(streamId, recent.reverse(), events);
  }

async function readAll(after: GlobalPosition, limit: number): Promise<RecordedEvent[]> {
    const found: RecordedEvent[] = [];
    let cursor = after;
    while (found.length < limit) {
      const fromPosition = comparePositions(cursor, startOfLog) === 0 ? START : toEsdb(cursor);
      const page = await readAllPage({ fromPosition, direction: FORWARDS });
      for (const { event } of page) {
        if (!event) continue;
        const position = toGlobal(event.position);
        // fromPosition is inclusive.
        if (comparePositions(position, cursor) <= 0) continue;
        cursor = position;
        if (isSystem(event)) continue;
        found.push(toRecorded(event));
        if (found.length === limit) break;
      }
      if (page.length < pageSize) break;
    }
    return found;
  }

  return {
    kind: 'eventstoredb',

    async appendToStream(streamId, events, { expectedVersion }) {
      if (events.length === 0) throw new Error('nothing to append');
      // The server deduplicates by event id on a best-effort basis only: recognise a retry here first.
      const already = await findRecentlyStored(streamId, events);
      if (already) return already;
      let result;
      try {
        result = await client.appendToStream(streamId, events.map(toEventData), { expectedRevision: toExpectedRevision(expectedVersion) });
      } catch (error) {
        if (!(error instanceof EsdbWrongExpectedVersionError)) throw error;
        // A retry whose first attempt succeeded, with a version check the server no longer matches.
        const stored = await findStored(streamId, events);
        if (stored) return stored;
        throw new WrongExpectedVersionError(streamId, expectedVersion);
      }
      if (result.position) return { nextExpectedVersion: Number(result.nextExpectedRevision) + 1, position: toGlobal(result.position) };
      // The server deduplicated the events by id and reports no position: answer as the first append did.
      const stored = await findStored(streamId, events);
      if (!stored) throw new Error(`append to ${streamId} succeeded but its events cannot be found`);
      return stored;
    },

    async appendToStreams(batches) {
      const results: AppendResult[] = [];
      for (const batch of batches) results.push(await this.appendToStream(batch.streamId, batch.events, { expectedVersion: batch.expectedVersion }));
      return results;
    },

    readStream,

    readAll,

    async readLog(after, limit, types) {
      // $all is gap-free here: filter by type after reading, and move past whatever was read.
      const events = await readAll(after, limit);
      const wanted = types ? new Set(types) : null;
      return { events: wanted ? events.filter((e) => wanted.has(e.type)) : events, through: events.at(-1)?.position ?? after, full: events.length === limit };
    },

    async headPosition() {
      let cursor: GlobalPosition | null = null;
      for (;;) {
        const page = await readAllPage({ fromPosition: cursor ? toEsdb(cursor) : END, direction: BACKWARDS });
        for (const { event } of page) {
          if (!event) continue;
          const position = toGlobal(event.position);
          if (cursor && comparePositions(position, cursor) >= 0) continue;
          if (!isSystem(event)) return position;
          cursor = position;
        }
        if (page.length < pageSize) return startOfLog;
      }
    },

    async isBeyondLog(position) {
      // $all's scans move only to events read: nothing past the last event was handed out.
      return comparePositions(position, await this.headPosition()) > 0;
    },

    async watch(onAppend) {
      let stopped = false;
      let retry: NodeJS.Timeout | null = null;
      let subscription: AllStreamSubscription | null = null;

      // After a resubscription, onAppend runs once since appends may have been missed meanwhile.
      const resubscribe = (): void => {
        if (!stopped) retry = setTimeout(() => void subscribe().then(onAppend, resubscribe), 500);
      };

      const subscribe = (): Promise<void> =>
        new Promise((resolve, reject) => {
          let confirmed = false;
          let dropped = false;
          const next = client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() });
          subscription = next;
          const drop = (error: Error): void => {
            if (dropped) return;
            dropped = true;
            next.destroy();
            if (confirmed) resubscribe();
            else reject(error);
          };
          next.on('data', () => onAppend());
          next.once('confirmation', () => {
            confirmed = true;
            resolve();
          });
          next.on('error', drop);
          next.on('close', () => drop(new Error('the $all subscription closed')));
        });

      await subscribe();
      return async () => {
        stopped = true;
        if (retry) clearTimeout(retry);
        await subscription?.unsubscribe().catch(() => undefined);
      };
    },

    async close() {
      await client.dispose();
    },
  };
}
