import { fundingAgencyUpcasters, fundingAgencyVersions } from './funding-agencies/upcasters.ts';
import type { EventCatalog } from './shared/upcasting.ts';

/** The current schema version of every event type, and how to lift older ones. */
export const eventCatalog: EventCatalog = {
  currentVersions: {
    ...fundingAgencyVersions,
  },
  upcasters: [...fundingAgencyUpcasters],
};
