import { randomUUID } from 'node:crypto';
import {
  IdempotencyConflictError,
  WrongExpectedVersionError,
  comparePositions,
  startOfLog,
  type AppendResult,
  type EventStore,
  type GlobalPosition,
  type NewEvent,
  type RecordedEvent,
} from '@cairn/platform';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

export type RawEventRow = { streamId: string; type: string; schemaVersion: number; data: unknown };

export type ContractSubject = {
  store: EventStore;
  /** Stores an event as-is (any schema version), bypassing the store's append path. */
  insertRaw?: (row: RawEventRow) => Promise<void>;
  /** PostgreSQL only: the pool behind the store, for transactions held open by hand. */
  pool?: pg.Pool;
  close: () => Promise<void>;
};

const eventType = 'EventStoreContractHappened';
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function newEvent(data: Record<string, unknown> = {}): NewEvent {
  const id = randomUUID();
  return {
    id,
    type: eventType,
    schemaVersion: 1,
    data: { id, ...data },
    metadata: {
      actorId: randomUUID(),
      requestId: randomUUID(),
      correlationId: randomUUID(),
      causationId: randomUUID(),
      occurredAt: new Date().toISOString(),
    },
  };
}

const batch = (count: number): NewEvent[] => Array.from({ length: count }, (_, i) => newEvent({ index: i }));
const ids = (events: readonly { id: string }[]): string[] => events.map((e) => e.id);

function expectStrictlyIncreasing(positions: readonly GlobalPosition[]): void {
  for (let i = 1; i < positions.length; i += 1) {
    const previous = positions[i - 1];
    const current = positions[i];
    if (!previous || !current) throw new Error('unreachable');
    expect(comparePositions(previous, current), `position ${i} must be after position ${i - 1}`).toBe(-1);
  }
}

/**
 * Follows the global log from `after` the way a projector does: pages of `limit`,
 * checkpoint moved to the last event of each page, until every id in `wanted` was seen
 * and a read came back empty, or the deadline passed. Returns the wanted events in the
 * order seen (duplicates included, so callers can count them), every event and position seen.
 */
async function follow(
  store: EventStore,
  after: GlobalPosition,
  wanted: ReadonlySet<string>,
  options: { limit?: number; timeoutMs?: number } = {},
): Promise<{ events: RecordedEvent[]; all: RecordedEvent[]; positions: GlobalPosition[]; checkpoint: GlobalPosition }> {
  const limit = options.limit ?? 50;
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  const events: RecordedEvent[] = [];
  const all: RecordedEvent[] = [];
  const positions: GlobalPosition[] = [];
  const seen = new Set<string>();
  let checkpoint = after;
  while (Date.now() < deadline) {
    const page = await store.readAll(checkpoint, limit);
    expect(page.length).toBeLessThanOrEqual(limit);
    for (const event of page) {
      all.push(event);
      positions.push(event.position);
      checkpoint = event.position;
      if (wanted.has(event.id)) {
        events.push(event);
        seen.add(event.id);
      }
    }
    if (page.length === 0) {
      if (seen.size === wanted.size) break;
      await sleep(10);
    }
  }
  return { events, all, positions, checkpoint };
}

async function expectRejection(promise: Promise<unknown>, errorClass: new (...args: never[]) => Error): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(errorClass);
}

export function eventStoreContract(name: string, open: () => Promise<ContractSubject>): void {
  describe(name, () => {
    let subject: ContractSubject;
    let store: EventStore;

    beforeAll(async () => {
      subject = await open();
      store = subject.store;
    });

    afterAll(async () => {
      await subject?.close();
    });

    describe('expected version', () => {
      it("'none' creates a stream and fails, changing nothing, once the stream exists", async () => {
        const streamId = `contract-${randomUUID()}`;
        const first = batch(3);
        const result = await store.appendToStream(streamId, first, { expectedVersion: 'none' });
        expect(result.nextExpectedVersion).toBe(3);

        await expectRejection(store.appendToStream(streamId, batch(2), { expectedVersion: 'none' }), WrongExpectedVersionError);
        const read = await store.readStream(streamId);
        expect(read.version).toBe(3);
        expect(ids(read.events)).toEqual(ids(first));
      });

      it('an exact version appends when it matches and fails, storing nothing, when stale', async () => {
        const streamId = `contract-${randomUUID()}`;
        const first = batch(2);
        const second = batch(3);
        expect((await store.appendToStream(streamId, first, { expectedVersion: 'none' })).nextExpectedVersion).toBe(2);
        expect((await store.appendToStream(streamId, second, { expectedVersion: 2 })).nextExpectedVersion).toBe(5);

        await expectRejection(store.appendToStream(streamId, batch(1), { expectedVersion: 2 }), WrongExpectedVersionError);
        await expectRejection(store.appendToStream(streamId, batch(1), { expectedVersion: 7 }), WrongExpectedVersionError);
        const read = await store.readStream(streamId);
        expect(read.version).toBe(5);
        expect(ids(read.events)).toEqual([...ids(first), ...ids(second)]);
      });

      it('an exact version on a stream that does not exist fails and creates nothing', async () => {
        const streamId = `contract-${randomUUID()}`;
        await expectRejection(store.appendToStream(streamId, batch(1), { expectedVersion: 3 }), WrongExpectedVersionError);
        expect(await store.readStream(streamId)).toEqual({ version: 0, events: [] });
      });

      it("'any' always appends and the version keeps counting", async () => {
        const streamId = `contract-${randomUUID()}`;
        const appended: NewEvent[] = [];
        const versions: number[] = [];
        for (const size of [1, 3, 2]) {
          const events = batch(size);
          appended.push(...events);
          versions.push((await store.appendToStream(streamId, events, { expectedVersion: 'any' })).nextExpectedVersion);
        }
        expect(versions).toEqual([1, 4, 6]);
        const read = await store.readStream(streamId);
        expect(read.version).toBe(6);
        expect(ids(read.events)).toEqual(ids(appended));
      });

      it('of 8 concurrent appends at the same exact version, exactly one wins', async () => {
        const streamId = `contract-${randomUUID()}`;
        const initial = batch(2);
        await store.appendToStream(streamId, initial, { expectedVersion: 'none' });
        const contenders = Array.from({ length: 8 }, () => batch(2));

        const outcomes = await Promise.allSettled(contenders.map((events) => store.appendToStream(streamId, events, { expectedVersion: 2 })));

        const winners = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [{ index: i, result: o.value }] : []));
        const losers = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
        expect(winners).toHaveLength(1);
        expect(losers).toHaveLength(7);
        for (const reason of losers) expect(reason).toBeInstanceOf(WrongExpectedVersionError);
        const winner = winners[0];
        if (!winner) throw new Error('unreachable');
        expect(winner.result.nextExpectedVersion).toBe(4);

        const read = await store.readStream(streamId);
        expect(read.version).toBe(4);
        expect(ids(read.events)).toEqual([...ids(initial), ...ids(contenders[winner.index] ?? [])]);
      });
    });

    describe('idempotency', () => {
      const expectSameResult = (a: AppendResult, b: AppendResult) => {
        expect(b.nextExpectedVersion).toBe(a.nextExpectedVersion);
        expect(comparePositions(a.position, b.position)).toBe(0);
      };

      it('a batch appended twice is stored once and answers as the first append did', async () => {
        const streamId = `contract-${randomUUID()}`;
        const first = batch(3);
        const created = await store.appendToStream(streamId, first, { expectedVersion: 'none' });
        expectSameResult(created, await store.appendToStream(streamId, first, { expectedVersion: 'none' }));

        const second = batch(2);
        const appended = await store.appendToStream(streamId, second, { expectedVersion: 3 });
        expect(appended.nextExpectedVersion).toBe(5);
        expectSameResult(appended, await store.appendToStream(streamId, second, { expectedVersion: 3 }));

        const third = batch(1);
        const any = await store.appendToStream(streamId, third, { expectedVersion: 'any' });
        expectSameResult(any, await store.appendToStream(streamId, third, { expectedVersion: 'any' }));

        const read = await store.readStream(streamId);
        expect(read.version).toBe(6);
        expect(ids(read.events)).toEqual([...ids(first), ...ids(second), ...ids(third)]);
      });

      it.each<['any' | 'exact']>([['any'], ['exact']])("a retry racing its first attempt (%s version) is stored once; both answer alike", async (mode) => {
        for (let round = 0; round < 5; round += 1) {
          // A new stream, then one with events already: the two take different paths.
          const streamId = `contract-${randomUUID()}`;
          const existing = round % 2 === 0 ? [] : batch(2);
          if (existing.length > 0) await store.appendToStream(streamId, existing, { expectedVersion: 'none' });
          const events = batch(3);
          const expectedVersion = mode === 'any' ? 'any' : existing.length === 0 ? 'none' : existing.length;

          const [a, b] = await Promise.all([
            store.appendToStream(streamId, events, { expectedVersion }),
            store.appendToStream(streamId, events, { expectedVersion }),
          ]);

          expect(a.nextExpectedVersion).toBe(existing.length + 3);
          expectSameResult(a, b);
          const read = await store.readStream(streamId);
          expect(read.version).toBe(existing.length + 3);
          expect(ids(read.events)).toEqual([...ids(existing), ...ids(events)]);
        }
      });

      it('a batch of which only some events are already stored fails and stores nothing', async () => {
        const streamId = `contract-${randomUUID()}`;
        const stored = batch(2);
        await store.appendToStream(streamId, stored, { expectedVersion: 'none' });
        const [a, b] = stored;
        if (!a || !b) throw new Error('unreachable');

        await expectRejection(store.appendToStream(streamId, [b, newEvent()], { expectedVersion: 'any' }), IdempotencyConflictError);
        await expectRejection(store.appendToStream(streamId, [a, b, newEvent()], { expectedVersion: 2 }), IdempotencyConflictError);

        const read = await store.readStream(streamId);
        expect(read.version).toBe(2);
        expect(ids(read.events)).toEqual(ids(stored));
      });
    });

    describe('readStream', () => {
      it('returns the events in order with versions 1..n, type, schema version, data and metadata as written', async () => {
        const streamId = `contract-${randomUUID()}`;
        const events: NewEvent[] = [
          newEvent({ text: 'first', nested: { list: [1, 2, 3], flag: true, nothing: null } }),
          { ...newEvent({ text: 'second' }), schemaVersion: 3, metadata: { actorId: null, requestId: null, correlationId: randomUUID(), causationId: null, occurredAt: '2024-02-29T23:59:59.123Z' } },
          newEvent({ text: 'third', unicode: 'Zürich – 東京' }),
        ];
        await store.appendToStream(streamId, events.slice(0, 2), { expectedVersion: 'none' });
        await store.appendToStream(streamId, events.slice(2), { expectedVersion: 2 });

        const read = await store.readStream(streamId);
        expect(read.version).toBe(3);
        expect(read.events).toHaveLength(3);
        read.events.forEach((recorded, i) => {
          const written = events[i];
          if (!written) throw new Error('unreachable');
          expect(recorded.id).toBe(written.id);
          expect(recorded.streamId).toBe(streamId);
          expect(recorded.streamVersion).toBe(i + 1);
          expect(recorded.type).toBe(written.type);
          expect(recorded.schemaVersion).toBe(written.schemaVersion);
          expect(recorded.data).toEqual(written.data);
          expect(recorded.metadata).toEqual(written.metadata);
          expect(recorded.metadata.actorId).toBe(written.metadata.actorId);
          expect(recorded.metadata.requestId).toBe(written.metadata.requestId);
          expect(recorded.metadata.correlationId).toBe(written.metadata.correlationId);
          expect(recorded.metadata.causationId).toBe(written.metadata.causationId);
          expect(recorded.metadata.occurredAt).toBe(written.metadata.occurredAt);
          expect(Number.isNaN(Date.parse(recorded.recordedAt))).toBe(false);
        });
        expectStrictlyIncreasing(read.events.map((e) => e.position));
      });

      it('an absent stream reads as version 0 with no events', async () => {
        expect(await store.readStream(`contract-${randomUUID()}`)).toEqual({ version: 0, events: [] });
      });
    });

    describe('readAll', () => {
      it('returns the events after a position, in global order, with strictly increasing positions', async () => {
        const [s1, s2] = [`contract-${randomUUID()}`, `contract-${randomUUID()}`];
        const before = [...batch(2)];
        const beforeResult = await store.appendToStream(s1, before, { expectedVersion: 'none' });
        const after1 = batch(2);
        const after2 = batch(3);
        const after3 = batch(1);
        await store.appendToStream(s2, after1, { expectedVersion: 'none' });
        await store.appendToStream(s1, after2, { expectedVersion: 2 });
        const last = await store.appendToStream(s2, after3, { expectedVersion: 2 });
        const expected = [...after1, ...after2, ...after3];

        const { events, all, positions } = await follow(store, beforeResult.position, new Set(ids(expected)), { limit: 1000 });
        expect(ids(events)).toEqual(ids(expected));
        expect(all.filter((e) => ids(before).includes(e.id))).toEqual([]);
        expectStrictlyIncreasing(positions);
        for (const p of positions) expect(comparePositions(p, beforeResult.position)).toBe(1);
        expect(comparePositions(events.at(-1)?.position ?? startOfLog, last.position)).toBe(0);
        expect(events.map((e) => [e.streamId, e.streamVersion])).toEqual([
          [s2, 1],
          [s2, 2],
          [s1, 3],
          [s1, 4],
          [s1, 5],
          [s2, 3],
        ]);
        // The data and metadata come back as written, as from readStream.
        events.forEach((e, i) => {
          expect(e.data).toEqual(expected[i]?.data);
          expect(e.metadata).toEqual(expected[i]?.metadata);
        });
      });

      it('paging from the start of the log visits every event exactly once', async () => {
        const streams = Array.from({ length: 3 }, () => `contract-${randomUUID()}`);
        const appended: NewEvent[] = [];
        let last: AppendResult | null = null;
        for (let round = 0; round < 4; round += 1) {
          for (const streamId of streams) {
            const events = batch(1 + (round % 2));
            appended.push(...events);
            last = await store.appendToStream(streamId, events, { expectedVersion: 'any' });
          }
        }

        const { events, positions } = await follow(store, startOfLog, new Set(ids(appended)), { limit: 7 });
        expect(ids(events)).toEqual(ids(appended));
        expectStrictlyIncreasing(positions);

        // The head reaches the last append (at once, unless another writer is still in flight).
        if (!last) throw new Error('unreachable');
        const deadline = Date.now() + 10_000;
        let head = await store.headPosition();
        while (comparePositions(head, last.position) < 0 && Date.now() < deadline) {
          await sleep(20);
          head = await store.headPosition();
        }
        expect(comparePositions(head, last.position)).toBeGreaterThanOrEqual(0);
        expect(comparePositions(positions.at(-1) ?? startOfLog, head)).toBeLessThanOrEqual(0);
      });

      it('a follower misses nothing while many writers append concurrently, some holding their transaction open', { timeout: 45_000 }, async () => {
        const writers = 12;
        const appendsPerWriter = 25;
        const streams = Array.from({ length: writers }, () => `contract-gap-${randomUUID()}`);
        const expected = new Set<string>();
        const start = await store.headPosition();
        let writing = true;
        let failed = false;

        // When each append returned, and where it landed: to check a gap really opened below.
        const committed: { at: number; position: GlobalPosition }[] = [];
        const write = async (streamId: string): Promise<void> => {
          for (let i = 0; i < appendsPerWriter; i += 1) {
            await sleep(Math.random() * 4);
            const event = newEvent({ writer: streamId, i });
            expected.add(event.id);
            const { position } = await store.appendToStream(streamId, [event], { expectedVersion: 'any' });
            committed.push({ at: performance.now(), position });
          }
        };

        // PostgreSQL: transactions that take their position early and commit late, while others commit first.
        const pool = subject.pool;
        const slow: { position: GlobalPosition; committedAt: number }[] = [];
        const slowWrite = async (slot: number): Promise<void> => {
          if (!pool) return;
          for (let i = 0; i < 3; i += 1) {
            await sleep(30 + slot * 20 + Math.random() * 40);
            const event = newEvent({ slow: slot, i });
            const streamId = `contract-slow-${randomUUID()}`;
            expected.add(event.id);
            const client = await pool.connect();
            try {
              await client.query('begin');
              await client.query('insert into streams (stream_id, version) values ($1, 1)', [streamId]);
              const { rows } = await client.query<{ transaction_id: string; position: string }>(
                `insert into events (event_id, stream_id, stream_version, type, schema_version, data, metadata)
                 values ($1, $2, 1, $3, $4, $5, $6) returning transaction_id::text, position`,
                [event.id, streamId, event.type, event.schemaVersion, JSON.stringify(event.data), JSON.stringify(event.metadata)],
              );
              await client.query('select pg_sleep(0.2)');
              await client.query('commit');
              const row = rows[0];
              if (row) slow.push({ position: { major: BigInt(row.transaction_id), minor: BigInt(row.position) }, committedAt: performance.now() });
            } catch (error) {
              await client.query('rollback').catch(() => undefined);
              throw error;
            } finally {
              client.release();
            }
          }
        };

        const seenIds: string[] = [];
        const seenPositions: GlobalPosition[] = [];
        const follower = (async () => {
          const deadline = Date.now() + 30_000;
          let checkpoint = start;
          while (Date.now() < deadline && !failed) {
            const page = await store.readAll(checkpoint, 50);
            for (const event of page) {
              seenPositions.push(event.position);
              checkpoint = event.position;
              if (expected.has(event.id)) seenIds.push(event.id);
            }
            if (page.length === 0) {
              if (!writing && new Set(seenIds).size >= expected.size) return;
              await sleep(2);
            }
          }
        })();

        try {
          await Promise.all([...streams.map(write), ...[0, 1, 2, 3].map(slowWrite)]);
        } catch (error) {
          failed = true;
          await follower.catch(() => undefined);
          throw error;
        } finally {
          writing = false;
        }
        await follower;

        const totalExpected = writers * appendsPerWriter + (pool ? 12 : 0);
        expect(expected.size).toBe(totalExpected);
        const counts = new Map<string, number>();
        for (const id of seenIds) counts.set(id, (counts.get(id) ?? 0) + 1);
        const missed = [...expected].filter((id) => !counts.has(id));
        const duplicated = [...counts].filter(([, n]) => n > 1);
        expect(missed, 'events the follower skipped').toEqual([]);
        expect(duplicated, 'events the follower saw twice').toEqual([]);
        expect(seenIds).toHaveLength(totalExpected);
        expectStrictlyIncreasing(seenPositions);
        if (pool) {
          // The scenario did open gaps: appends placed after a slow event returned before it committed.
          const overtaken = slow.filter((s) => committed.some((c) => c.at < s.committedAt && comparePositions(c.position, s.position) > 0));
          expect(slow).toHaveLength(12);
          expect(overtaken.length).toBeGreaterThan(0);
        }

        // Per stream, the follower saw each writer's events in the order they were appended.
        for (const streamId of streams) {
          const read = await store.readStream(streamId);
          expect(read.version).toBe(appendsPerWriter);
          const order = seenIds.filter((id) => read.events.some((e) => e.id === id));
          expect(order).toEqual(ids(read.events));
        }
      });

      it('a rolled-back transaction does not stall readers', async (context) => {
        const pool = subject.pool;
        if (!pool) {
          context.skip(); // PostgreSQL only: needs a transaction held open by hand.
          return;
        }
        const checkpoint = (await store.appendToStream(`contract-${randomUUID()}`, batch(1), { expectedVersion: 'none' })).position;

        const rolledBack = newEvent({ rolledBack: true });
        const later = newEvent({ later: true });
        const client = await pool.connect();
        try {
          await client.query('begin');
          await client.query(
            `insert into events (event_id, stream_id, stream_version, type, schema_version, data, metadata)
             values ($1, $2, 1, $3, 1, $4, $5)`,
            [rolledBack.id, `contract-${randomUUID()}`, rolledBack.type, JSON.stringify(rolledBack.data), JSON.stringify(rolledBack.metadata)],
          );
          await store.appendToStream(`contract-${randomUUID()}`, [later], { expectedVersion: 'none' });
          await sleep(100);
          await client.query('rollback');
        } finally {
          client.release();
        }

        const startedAt = Date.now();
        const { events, all } = await follow(store, checkpoint, new Set([later.id]), { timeoutMs: 3_000 });
        expect(ids(events)).toEqual([later.id]);
        expect(ids(all)).not.toContain(rolledBack.id);
        expect(Date.now() - startedAt).toBeLessThan(3_000);
      });
    });

    describe('upcasting', () => {
      it('a raw FundingAgencyCreated at schema version 1 reads as version 2 from readStream and readAll', async (context) => {
        const insertRaw = subject.insertRaw;
        if (!insertRaw) {
          context.skip();
          return;
        }
        const streamId = `funding-agency-${randomUUID()}`;
        const agencyId = randomUUID();
        const from = await store.headPosition();
        await insertRaw({
          streamId,
          type: 'FundingAgencyCreated',
          schemaVersion: 1,
          data: { id: agencyId, name: 'Contract Agency', abbreviation: 'CA', homepage: 'https://x.example' },
        });
        const upcastData = { id: agencyId, name: 'Contract Agency', abbreviation: 'CA', url: 'https://x.example', catalogId: '' };

        const read = await store.readStream(streamId);
        expect(read.version).toBe(1);
        expect(read.events).toHaveLength(1);
        const [fromStream] = read.events;
        expect(fromStream?.type).toBe('FundingAgencyCreated');
        expect(fromStream?.schemaVersion).toBe(2);
        expect(fromStream?.data).toEqual(upcastData);

        const { events } = await follow(store, from, new Set([fromStream?.id ?? '']));
        expect(events).toHaveLength(1);
        expect(events[0]?.streamId).toBe(streamId);
        expect(events[0]?.schemaVersion).toBe(2);
        expect(events[0]?.data).toEqual(upcastData);
      });
    });
  });
}
