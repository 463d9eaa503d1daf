import type { fundingAgencies } from '@cairn/domain';
import type { Projection } from '../runner/projection.ts';
import { insert, remove, update } from '../runner/row-ops.ts';

type Event = fundingAgencies.FundingAgencyEvent;

export const fundingAgenciesProjection: Projection = {
  name: 'funding-agencies',
  // 2: row operations, applied inline.
  version: 2,
  handles: ['FundingAgencyCreated', 'FundingAgencyUpdated', 'FundingAgencyDeleted'],
  tables: ['funding_agencies'],
  project(recorded) {
    const event = { type: recorded.type, data: recorded.data } as Event;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'FundingAgencyCreated': {
        const { id, name, abbreviation, url, catalogId } = event.data;
        return [insert('funding_agencies', { id, name, abbreviation, url, catalog_id: catalogId, created_at: at, updated_at: at }, { key: ['id'] })];
      }
      case 'FundingAgencyUpdated': {
        const { name, abbreviation, url, catalogId } = event.data.changes;
        return [update('funding_agencies', { id: event.data.id }, { name, abbreviation, url, catalog_id: catalogId, updated_at: at })];
      }
      case 'FundingAgencyDeleted':
        return [remove('funding_agencies', { id: event.data.id })];
      default: {
        // A new event type of the union fails to compile until it is handled above.
        const _exhaustive: never = event;
        return [];
      }
    }
  },
};
