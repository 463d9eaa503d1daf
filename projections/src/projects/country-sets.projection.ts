import type { countrySets } from '@cairn/domain';
import type { Projection } from '../runner/projection.ts';
import { insert, remove, update } from '../runner/row-ops.ts';

type Event = countrySets.CountrySetEvent;

/** Named country sets of organizations (docs/projects.md). */
export const countrySetsProjection: Projection = {
  name: 'country-sets',
  version: 2,
  handles: ['CountrySetCreated', 'CountrySetUpdated', 'CountrySetDeleted'],
  tables: ['country_sets'],
  project(recorded) {
    const event = { type: recorded.type, data: recorded.data } as Event;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'CountrySetCreated': {
        const { id, organizationId, name, kind, countries } = event.data;
        return [insert('country_sets', { id, organization_id: organizationId, name, kind, countries: [...countries], created_at: at, updated_at: at }, { key: ['id'] })];
      }
      case 'CountrySetUpdated': {
        const { name, countries } = event.data.changes;
        return [update('country_sets', { id: event.data.id }, { name, countries: countries ? [...countries] : undefined, updated_at: at })];
      }
      case 'CountrySetDeleted':
        return [remove('country_sets', { id: event.data.id })];
    }
  },
};
