import type { BoundOperation } from '@cairn/platform';
import type { QueryDeps } from '../deps.ts';
import { getCountrySetRoute } from './get-country-set.route.ts';
import { listCountrySetsRoute } from './list-country-sets.route.ts';

export function countrySetQueryRoutes(deps: QueryDeps): BoundOperation[] {
  return [listCountrySetsRoute(deps), getCountrySetRoute(deps)];
}
