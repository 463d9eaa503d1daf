import { randomUUID } from 'node:crypto';
import { createEventStoreDbEventStore, upcastEvent } from '@cairn/platform';
import { describe } from 'vitest';
import { eventStoreContract } from './event-store.contract.ts';

const eventStoreUrl = process.env['EVENTSTORE_URL'];

// Runs only against a real EventStoreDB server, e.g. EVENTSTORE_URL=esdb://127.0.0.1:2113?tls=false.
describe.skipIf(!eventStoreUrl)('EventStoreDB', () => {
  eventStoreContract('EventStoreDB event store', async () => {
    const store = createEventStoreDbEventStore(eventStoreUrl ?? '', upcastEvent);
    return {
      store,
      // The schema version travels in the metadata, so an append stores an old version as-is.
      insertRaw: async (row) => {
        await store.appendToStream(
          row.streamId,
          [
            {
              id: randomUUID(),
              type: row.type,
              schemaVersion: row.schemaVersion,
              data: row.data,
              metadata: { actorId: null, requestId: null, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() },
            },
          ],
          { expectedVersion: 'none' },
        );
      },
      close: () => store.close(),
    };
  });
});
