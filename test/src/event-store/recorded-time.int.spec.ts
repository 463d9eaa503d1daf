import { randomUUID } from 'node:crypto';
import { createPool, createPostgresEventStore, startOfLog, upcastEvent } from '@cairn/platform';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.ts';

// The log's reads send the recording time as text made in SQL (no Date per event); it must
// be the very text pg's Date parsing and toISOString gave before, which audit hashes keep.
describe('an event’s recording time read from the log', () => {
  const state: { close?: () => Promise<void> } = {};
  afterAll(async () => state.close?.());

  it('is the ISO text Date.toISOString writes, milliseconds truncated, in UTC', async () => {
    const url = await createTestDatabase();
    const pool = createPool(url, 4);
    state.close = () => pool.end();
    const store = createPostgresEventStore(pool, upcastEvent, url);
    const times = ['2026-01-01 00:00:00.999999+00', '2026-06-30 23:59:59.0005+02', '2025-12-31 23:59:59.123456-05', '2024-02-29 12:00:00+00', '1999-12-31 23:59:59.9999+14'];
    const streamId = `recorded-time-${randomUUID()}`;
    for (const [i, time] of times.entries()) {
      await pool.query(
        `insert into events (event_id, stream_id, stream_version, type, schema_version, data, metadata, recorded_at)
         values ($1, $2, $3, 'TimeProbe', 1, '{}', $4, $5)`,
        [randomUUID(), streamId, i + 1, JSON.stringify({ actorId: null, requestId: null, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() }), time],
      );
    }
    const { rows } = await pool.query<{ recorded_at: Date }>('select recorded_at from events where stream_id = $1 order by stream_version', [streamId]);
    const expected = rows.map((r) => r.recorded_at.toISOString());
    expect(expected[0]).toBe('2026-01-01T00:00:00.999Z');

    expect((await store.readStream(streamId)).events.map((e) => e.recordedAt)).toEqual(expected);
    // The log shows them once every older transaction on the server has ended (another test
    // file's long one may hold them back a while).
    const deadline = Date.now() + 30_000;
    let page = await store.readLog(startOfLog, 100, ['TimeProbe']);
    while (page.events.length < times.length && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      page = await store.readLog(startOfLog, 100, ['TimeProbe']);
    }
    expect(page.events.map((e) => e.recordedAt)).toEqual(expected);
  });
});
