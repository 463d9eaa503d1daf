import { randomUUID } from 'node:crypto';
import type { EventStore, NewEvent } from '@cairn/platform';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectStrictlyIncreasing, newEvent, type ContractSubject } from './support.ts';

/** Reading one stream: order, versions and everything written, as written. */
export function readStreamContract(subject: () => ContractSubject): void {
  describe('readStream', () => {
    let store: EventStore;

    beforeAll(() => {
      store = subject().store;
    });

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
}
