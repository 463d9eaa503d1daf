import type { BoundOperation } from '@cairn/platform';
import type { CommandDeps } from './deps.ts';
import { createFundingAgencyRoute } from './funding-agencies/create-funding-agency.route.ts';
import { deleteFundingAgencyRoute } from './funding-agencies/delete-funding-agency.route.ts';
import { updateFundingAgencyRoute } from './funding-agencies/update-funding-agency.route.ts';

export type { CommandDeps } from './deps.ts';

/** Every write of the interface (POST, PUT, PATCH, DELETE). */
export function commandOperations(deps: CommandDeps): BoundOperation[] {
  return [createFundingAgencyRoute(deps), updateFundingAgencyRoute(deps), deleteFundingAgencyRoute(deps)];
}
