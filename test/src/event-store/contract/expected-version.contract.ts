import { randomUUID } from 'node:crypto';
import { WrongExpectedVersionError, type EventStore, type NewEvent } from '@cairn/platform';
import { beforeAll, describe, expect, it } from 'vitest';
import { batch, expectRejection, ids, type ContractSubject } from './support.ts';

/** Optimistic concurrency: 'none', an exact version, 'any', and racing appends. */
export function expectedVersionContract(subject: () => ContractSubject): void {
  describe('expected version', () => {
    let store: EventStore;

    beforeAll(() => {
      store = subject().store;
    });

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
}
