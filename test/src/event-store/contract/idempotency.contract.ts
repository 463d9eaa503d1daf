import { randomUUID } from 'node:crypto';
import { IdempotencyConflictError, comparePositions, type AppendResult, type EventStore } from '@cairn/platform';
import { beforeAll, describe, expect, it } from 'vitest';
import { batch, expectRejection, ids, newEvent, type ContractSubject } from './support.ts';

/** Appending a batch again (by event ids) stores it once and answers alike. */
export function idempotencyContract(subject: () => ContractSubject): void {
  describe('idempotency', () => {
    let store: EventStore;

    beforeAll(() => {
      store = subject().store;
    });

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
}
