import type { countrySets } from '@cairn/domain';
import type { Projection } from '../runner/projection.ts';

type Event = countrySets.CountrySetEvent;

/** Named country sets of organizations (docs/projects.md). */
export const countrySetsProjection: Projection = {
  name: 'country-sets',
  version: 1,
  handles: ['CountrySetCreated', 'CountrySetUpdated', 'CountrySetDeleted'],
  tables: ['country_sets'],
  async apply(trx, recorded) {
    const event = { type: recorded.type, data: recorded.data } as Event;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'CountrySetCreated': {
        const { id, organizationId, name, kind, countries } = event.data;
        await trx
          .insertInto('country_sets')
          .values({ id, organization_id: organizationId, name, kind, countries: [...countries], created_at: at, updated_at: at })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'CountrySetUpdated': {
        const { name, countries } = event.data.changes;
        await trx
          .updateTable('country_sets')
          .set({ ...(name !== undefined ? { name } : {}), ...(countries !== undefined ? { countries: [...countries] } : {}), updated_at: at })
          .where('id', '=', event.data.id)
          .execute();
        return;
      }
      case 'CountrySetDeleted':
        await trx.deleteFrom('country_sets').where('id', '=', event.data.id).execute();
        return;
    }
  },
};
