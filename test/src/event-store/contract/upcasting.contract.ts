import { randomUUID } from 'node:crypto';
import type { EventStore } from '@cairn/platform';
import { beforeAll, describe, expect, it } from 'vitest';
import { follow, type ContractSubject } from './support.ts';

/** Events stored at an older schema version read at the current one, on both read paths. */
export function upcastingContract(subject: () => ContractSubject): void {
  describe('upcasting', () => {
    let store: EventStore;

    beforeAll(() => {
      store = subject().store;
    });

    it('a raw FundingAgencyCreated at schema version 1 reads as version 2 from readStream and readAll', async (context) => {
      const insertRaw = subject().insertRaw;
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
}
