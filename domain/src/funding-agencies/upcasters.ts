import type { Upcaster } from '../shared/upcasting.ts';

type CreatedV1 = { id: string; name: string; abbreviation: string; homepage?: string };

export const fundingAgencyVersions = {
  FundingAgencyCreated: 2,
  FundingAgencyUpdated: 1,
  FundingAgencyDeleted: 1,
} as const;

export const fundingAgencyUpcasters: readonly Upcaster[] = [
  {
    type: 'FundingAgencyCreated',
    fromVersion: 1,
    upcast: (data) => {
      const { homepage, ...rest } = data as CreatedV1;
      return { ...rest, url: homepage ?? '', catalogId: '' };
    },
  },
];
