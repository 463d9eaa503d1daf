import type { fundingAgencies } from '@cairn/domain';
import type { Projection } from '../runner/projection.ts';

type Event = fundingAgencies.FundingAgencyEvent;

export const fundingAgenciesProjection: Projection = {
  name: 'funding-agencies',
  version: 1,
  handles: ['FundingAgencyCreated', 'FundingAgencyUpdated', 'FundingAgencyDeleted'],
  tables: ['funding_agencies'],
  async apply(trx, recorded) {
    const event = { type: recorded.type, data: recorded.data } as Event;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'FundingAgencyCreated': {
        const { id, name, abbreviation, url, catalogId } = event.data;
        await trx
          .insertInto('funding_agencies')
          .values({ id, name, abbreviation, url, catalog_id: catalogId, created_at: at, updated_at: at })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'FundingAgencyUpdated': {
        const { name, abbreviation, url, catalogId } = event.data.changes;
        await trx
          .updateTable('funding_agencies')
          .set({
            ...(name !== undefined ? { name } : {}),
            ...(abbreviation !== undefined ? { abbreviation } : {}),
            ...(url !== undefined ? { url } : {}),
            ...(catalogId !== undefined ? { catalog_id: catalogId } : {}),
            updated_at: at,
          })
          .where('id', '=', event.data.id)
          .execute();
        return;
      }
      case 'FundingAgencyDeleted':
        await trx.deleteFrom('funding_agencies').where('id', '=', event.data.id).execute();
        return;
      default: {
        // A new event type of the union fails to compile until it is handled above.
        const _exhaustive: never = event;
        return;
      }
    }
  },
};
