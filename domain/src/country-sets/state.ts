import { assertNever } from '../shared/decider.ts';
import type { CountrySetEvent, CountrySetKind } from './events.ts';

export type CountrySetState =
  | { readonly status: 'absent' }
  | { readonly status: 'active'; readonly organizationId: string; readonly name: string; readonly kind: CountrySetKind; readonly countries: readonly string[] }
  | { readonly status: 'deleted' };

export const initialState: CountrySetState = { status: 'absent' };

export function evolve(state: CountrySetState, event: CountrySetEvent): CountrySetState {
  switch (event.type) {
    case 'CountrySetCreated': {
      const { organizationId, name, kind, countries } = event.data;
      return { status: 'active', organizationId, name, kind, countries };
    }
    case 'CountrySetUpdated':
      return state.status === 'active' ? { ...state, ...event.data.changes } : state;
    case 'CountrySetDeleted':
      return { status: 'deleted' };
    default:
      return assertNever(event);
  }
}
