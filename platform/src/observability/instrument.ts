import type { ConsistencyWaiter } from '../consistency/consistency-waiter.ts';
import type { EventStore } from '../event-store/event-store.ts';
import type { Metrics } from './metrics.ts';

/** The same event store, counting what it appends. */
export function countingAppends(eventStore: EventStore, metrics: Metrics): EventStore {
  const count = (events: readonly { type: string }[]) => {
    for (const e of events) metrics.appendedEvents.inc({ type: e.type });
  };
  return {
    ...eventStore,
    async appendToStream(streamId, events, options) {
      const result = await eventStore.appendToStream(streamId, events, options);
      count(events);
      return result;
    },
    async appendToStreams(batches) {
      const results = await eventStore.appendToStreams(batches);
      for (const b of batches) count(b.events);
      return results;
    },
  };
}

/** The same waiter, counting waits that reached the write and those that timed out. */
export function countingWaits(waiter: ConsistencyWaiter, metrics: Metrics): ConsistencyWaiter {
  return {
    ...waiter,
    async waitFor(position, names, timeoutMs, options) {
      const ok = await waiter.waitFor(position, names, timeoutMs, options);
      metrics.consistencyWaits.inc({ outcome: ok ? 'reached' : 'timeout' });
      return ok;
    },
  };
}
