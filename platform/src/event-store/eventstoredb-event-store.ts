import type { StoredEventView } from '@cairn/domain';
import type { EventStore } from './event-store.ts';

type Upcast = <E extends StoredEventView>(event: E) => E;

/**
 * The event store on EventStoreDB (eventstoredb-client-event-store.ts). Its gRPC client
 * (~90 ms of module loading) is loaded when the store is first used, so a deployment on
 * PostgreSQL, and every command there, never loads it.
 */
export function createEventStoreDbEventStore(connectionString: string, upcast: Upcast): EventStore {
  let opened: Promise<EventStore> | undefined;
  const store = () => (opened ??= import('./eventstoredb-client-event-store.ts').then((m) => m.clientEventStoreDbEventStore(connectionString, upcast)));
  return {
    kind: 'eventstoredb',
    appendToStream: async (streamId, events, options) => (await store()).appendToStream(streamId, events, options),
    appendToStreams: async (batches) => (await store()).appendToStreams(batches),
    readStream: async (streamId) => (await store()).readStream(streamId),
    readAll: async (after, limit) => (await store()).readAll(after, limit),
    readLog: async (after, limit, types) => (await store()).readLog(after, limit, types),
    headPosition: async () => (await store()).headPosition(),
    isBeyondLog: async (position) => (await store()).isBeyondLog(position),
    watch: async (onAppend) => (await store()).watch(onAppend),
    async close() {
      if (opened) await (await opened).close();
    },
  };
}
