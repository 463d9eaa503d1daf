import { randomUUID } from 'node:crypto';
import { comparePositions, startOfLog, type AppendResult, type EventStore, type GlobalPosition, type NewEvent } from '@cairn/platform';
import { beforeAll, describe, expect, it } from 'vitest';
import { batch, expectStrictlyIncreasing, follow, ids, newEvent, sleep, type ContractSubject } from './support.ts';

/** Following the global log: order, paging, concurrent writers, rolled-back transactions. */
export function readAllContract(subject: () => ContractSubject): void {
  describe('readAll', () => {
    let store: EventStore;

    beforeAll(() => {
      store = subject().store;
    });

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
      const pool = subject().pool;
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
      const pool = subject().pool;
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
}
