/**
 * `npm run bench`: appends per second (single events and batches, one writer and several)
 * and projection catch-up events per second, on a scratch database of the local server
 * (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres). Prints figures; asserts nothing.
 */
import { randomUUID } from 'node:crypto';
import { currentVersionOf, eventCatalog } from '@cairn/domain';
import { createLogger, createPool, createPostgresEventStore, migrate, upcastEvent, type EventStore, type NewEvent } from '@cairn/platform';
import { catchUp, createReadDb, fundingAgenciesProjection, resetProjection } from '@cairn/projections';
import pg from 'pg';

const serverUrl = process.env['BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const scale = Number(process.env['BENCH_SCALE'] ?? '1');

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

async function timed(label: string, events: number, work: () => Promise<void>): Promise<void> {
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  console.log(`${label.padEnd(48)} ${events.toString().padStart(7)} events  ${seconds.toFixed(2).padStart(7)} s  ${Math.round(events / seconds).toString().padStart(8)} events/s`);
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

async function main(): Promise<void> {
  const name = `cairn_bench_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pool = createPool(url.toString(), 12);
  try {
    await migrate(pool);
    const store = createPostgresEventStore(pool, upcastEvent, url.toString());
    const db = createReadDb(pool);
    const singles = 2000 * scale;
    const batches = 200 * scale;
    const batchSize = 50;
    console.log(`Cairn benchmark on ${url.host} (PostgreSQL event store)\n`);
    await timed('append, single events, 1 writer', singles, () => appendSingles(store, singles, 1));
    await timed('append, single events, 8 concurrent writers', singles, () => appendSingles(store, singles, 8));
    await timed(`append, batches of ${batchSize}, 1 writer`, batches * batchSize, async () => {
      for (let b = 0; b < batches; b += 1) {
        await store.appendToStream(`bench-${randomUUID()}`, Array.from({ length: batchSize }, (_, i) => event(b * batchSize + i)), { expectedVersion: 'none' });
      }
    });
    const total = Number((await pool.query<{ n: string }>('select count(*) as n from events')).rows[0]?.n ?? 0);
    const options = { db, eventStore: store, logger: createLogger('silent') };
    await resetProjection(db, fundingAgenciesProjection);
    await timed('projection catch-up (funding-agencies), from 0', total, async () => {
      await catchUp(options, fundingAgenciesProjection, 500);
    });
    const rows = Number((await pool.query<{ n: string }>('select count(*) as n from funding_agencies')).rows[0]?.n ?? 0);
    console.log(`\nread model rows: ${rows}`);
  } finally {
    await pool.end();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

await main();
