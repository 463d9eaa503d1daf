import { randomUUID } from 'node:crypto';
import { createPool, createPostgresEventStore, upcastEvent } from '@cairn/platform';
import { createTestDatabase } from '../support/database.ts';
import { eventStoreContract, type RawEventRow } from './event-store.contract.ts';

eventStoreContract('PostgreSQL event store', async () => {
  const url = await createTestDatabase();
  const pool = createPool(url, 24);
  const store = createPostgresEventStore(pool, upcastEvent, url);

  // A new stream holding one event stored as-is: how older schema versions sit in the table.
  const insertRaw = async (row: RawEventRow): Promise<void> => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      await client.query(
        `insert into events (event_id, stream_id, stream_version, type, schema_version, data, metadata)
         values ($1, $2, 1, $3, $4, $5, $6)`,
        [
          randomUUID(),
          row.streamId,
          row.type,
          row.schemaVersion,
          JSON.stringify(row.data),
          JSON.stringify({ actorId: null, requestId: null, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() }),
        ],
      );
      await client.query('commit');
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };

  return {
    store,
    insertRaw,
    pool,
    close: async () => {
      await store.close();
      await pool.end();
    },
  };
});
