import type { FundingAgencyId } from '../shared/ids.ts';

export const fundingAgencyStream = (id: FundingAgencyId | string) => `funding_agency-${id}`;
