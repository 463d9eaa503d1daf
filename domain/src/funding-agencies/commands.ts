import type { FundingAgencyId } from '../shared/ids.ts';
import type { FundingAgencyFields } from './events.ts';

export type CreateFundingAgency = {
  readonly type: 'CreateFundingAgency';
  readonly id: FundingAgencyId;
  readonly fields: FundingAgencyFields;
};

export type ChangeFundingAgency = {
  readonly type: 'ChangeFundingAgency';
  readonly id: FundingAgencyId;
  readonly changes: Partial<FundingAgencyFields>;
};

export type DeleteFundingAgency = {
  readonly type: 'DeleteFundingAgency';
  readonly id: FundingAgencyId;
};

export type FundingAgencyCommand = CreateFundingAgency | ChangeFundingAgency | DeleteFundingAgency;
