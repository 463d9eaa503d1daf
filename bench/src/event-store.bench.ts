import { randomUUID } from 'node:crypto';
import { currentVersionOf, eventCatalog } from '@cairn/domain';
import { createLogger, createPool, createPostgresEventStore, migrate, upcastEvent, type EventStore, type NewEvent } from '@cairn/platform';
import { catchUp, createReadDb, fundingAgenciesProjection, resetProjection } from '@cairn/projections';
import { timed, withScratchDatabase } from './scratch-database.ts';

function event(i: number): NewEvent {
  const id = randomUUID();
  return {
    id: randomUUID(),
    type: 'FundingAgencyCreated',
    schemaVersion: currentVersionOf(eventCatalog, 'FundingAgencyCreated'),
    data: { id, name: `Agency ${i}`, abbreviation: `A${i}`, url: 'https://example.org', catalogId: '' },
    metadata: { actorId: null, requestId: null, correlationId: id, causationId: null, occurredAt: new Date().toISOString() },
  };
}

async function appendSingles(store: EventStore, count: number, writers: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (next < count) {
        const i = next++;
        await store.appendToStream(`funding_agency-${randomUUID()}`, [event(i)], { expectedVersion: 'none' });
      }
    }),
  );
}

/** Appends per second (single events and batches) and projection catch-up events per second. */
export async function eventStoreBenchmark(scale: number): Promise<void> {
  await withScratchDatabase('events', async (url) => {
    const pool = createPool(url, 12);
    try {
      await migrate(pool);
      const store = createPostgresEventStore(pool, upcastEvent, url);
      const db = createReadDb(pool);
      const singles = 2000 * scale;
      const batches = 200 * scale;
      const batchSize = 50;
      console.log('\nEvent store (PostgreSQL)');
      await timed('append, single events, 1 writer', singles, 'events', () => appendSingles(store, singles, 1));
      await timed('append, single events, 8 concurrent writers', singles, 'events', () => appendSingles(store, singles, 8));
      await timed(`append, batches of ${batchSize}, 1 writer`, batches * batchSize, 'events', async () => {
        for (let b = 0; b < batches; b += 1) {
          await store.appendToStream(`bench-${randomUUID()}`, Array.from({ length: batchSize }, (_, i) => event(b * batchSize + i)), { expectedVersion: 'none' });
        }
      });
      const total = Number((await pool.query<{ n: string }>('select count(*) as n from events')).rows[0]?.n ?? 0);
      await resetProjection(db, fundingAgenciesProjection);
      await timed('projection catch-up (funding-agencies), from 0', total, 'events', async () => {
        await catchUp({ db, eventStore: store, logger: createLogger('silent') }, fundingAgenciesProjection, 500);
      });
    } finally {
      await pool.end();
    }
  });
}
