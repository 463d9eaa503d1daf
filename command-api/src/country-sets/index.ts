import type { BoundOperation } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { createCountrySetRoute } from './create-country-set.route.ts';
import { deleteCountrySetRoute } from './delete-country-set.route.ts';
import { updateCountrySetRoute } from './update-country-set.route.ts';

export function countrySetCommandRoutes(deps: CommandDeps): BoundOperation[] {
  return [createCountrySetRoute(deps), updateCountrySetRoute(deps), deleteCountrySetRoute(deps)];
}
