import type { DomainEvent } from '../shared/events.ts';
import type { FundingAgencyId } from '../shared/ids.ts';

export type FundingAgencyFields = {
  readonly name: string;
  readonly abbreviation: string;
  readonly url: string;
  readonly catalogId: string;
};

/** Schema version 2: version 1 called `url` `homepage` and had no `catalogId`. */
export type FundingAgencyCreated = DomainEvent<'FundingAgencyCreated', { readonly id: FundingAgencyId } & FundingAgencyFields>;

export type FundingAgencyUpdated = DomainEvent<'FundingAgencyUpdated', { readonly id: FundingAgencyId; readonly changes: Partial<FundingAgencyFields> }>;

export type FundingAgencyDeleted = DomainEvent<'FundingAgencyDeleted', { readonly id: FundingAgencyId }>;

export type FundingAgencyEvent = FundingAgencyCreated | FundingAgencyUpdated | FundingAgencyDeleted;

export const fundingAgencyEventTypes = ['FundingAgencyCreated', 'FundingAgencyUpdated', 'FundingAgencyDeleted'] as const;
