import type { BoundOperation } from '@cairn/platform';
import type { CommandDeps } from './deps.ts';
import { createFundingAgencyRoute } from './funding-agencies/create-funding-agency.route.ts';
import { deleteFundingAgencyRoute } from './funding-agencies/delete-funding-agency.route.ts';
import { updateFundingAgencyRoute } from './funding-agencies/update-funding-agency.route.ts';
import { adminCommandRoutes } from './admin/index.ts';
import { groupCommandRoutes } from './groups/index.ts';
import { organizationCommandRoutes } from './organizations/index.ts';
import { projectCommandRoutes } from './projects/index.ts';
import { countrySetCommandRoutes } from './country-sets/index.ts';
import { assetCommandRoutes } from './assets/index.ts';
import { assetNoteCommandRoutes } from './asset-notes/index.ts';
import { collectionCommandRoutes } from './collections/index.ts';
import { storageCommandRoutes } from './storage/index.ts';
import { webhookCommandRoutes } from './webhooks/index.ts';

export type { CommandDeps, StorageDeps } from './deps.ts';
export { newUserAllocation, type NewUserAllocation } from './storage/default-allocation.ts';
export * from './sign-in/index.ts';

/** Every write of the interface (POST, PUT, PATCH, DELETE). */
export function commandOperations(deps: CommandDeps): BoundOperation[] {
  return [createFundingAgencyRoute(deps), updateFundingAgencyRoute(deps), deleteFundingAgencyRoute(deps), ...groupCommandRoutes(deps), ...adminCommandRoutes(deps), ...organizationCommandRoutes(deps), ...projectCommandRoutes(deps), ...countrySetCommandRoutes(deps), ...assetCommandRoutes(deps), ...assetNoteCommandRoutes(deps), ...collectionCommandRoutes(deps), ...storageCommandRoutes(deps), ...webhookCommandRoutes(deps, deps.webhooks)];
}
