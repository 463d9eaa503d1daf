import { assertNever } from '../shared/decider.ts';
import type { FundingAgencyEvent, FundingAgencyFields } from './events.ts';

export type FundingAgencyState =
  | { readonly status: 'absent' }
  | { readonly status: 'active'; readonly fields: FundingAgencyFields }
  | { readonly status: 'deleted' };

export const initialState: FundingAgencyState = { status: 'absent' };

export function evolve(state: FundingAgencyState, event: FundingAgencyEvent): FundingAgencyState {
  switch (event.type) {
    case 'FundingAgencyCreated': {
      const { id: _id, ...fields } = event.data;
      return { status: 'active', fields };
    }
    case 'FundingAgencyUpdated':
      return state.status === 'active' ? { status: 'active', fields: { ...state.fields, ...event.data.changes } } : state;
    case 'FundingAgencyDeleted':
      return { status: 'deleted' };
    default:
      return assertNever(event);
  }
}
