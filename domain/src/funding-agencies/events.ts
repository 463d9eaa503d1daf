import type { FundingAgencyId } from '../shared/ids.ts';

export type FundingAgencyFields = {
  readonly name: string;
  readonly abbreviation: string;
  readonly url: string;
  readonly catalogId: string;
};

/** Schema version 2: version 1 called `url` `homepage` and had no `catalogId`. */
export type FundingAgencyCreated = {
  readonly type: 'FundingAgencyCreated';
  readonly data: { readonly id: FundingAgencyId } & FundingAgencyFields;
};

export type FundingAgencyUpdated = {
  readonly type: 'FundingAgencyUpdated';
  readonly data: { readonly id: FundingAgencyId; readonly changes: Partial<FundingAgencyFields> };
};

export type FundingAgencyDeleted = {
  readonly type: 'FundingAgencyDeleted';
  readonly data: { readonly id: FundingAgencyId };
};

export type FundingAgencyEvent = FundingAgencyCreated | FundingAgencyUpdated | FundingAgencyDeleted;

export const fundingAgencyEventTypes = ['FundingAgencyCreated', 'FundingAgencyUpdated', 'FundingAgencyDeleted'] as const;
