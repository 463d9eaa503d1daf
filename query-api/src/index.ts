import type { BoundOperation } from '@cairn/platform';
import type { QueryDeps } from './deps.ts';
import { getFundingAgencyRoute } from './funding-agencies/get-funding-agency.route.ts';
import { listFundingAgenciesRoute } from './funding-agencies/list-funding-agencies.route.ts';
import { adminQueryRoutes } from './admin/index.ts';
import { groupQueryRoutes } from './groups/index.ts';
import { organizationQueryRoutes } from './organizations/index.ts';
import { projectQueryRoutes } from './projects/index.ts';
import { countrySetQueryRoutes } from './country-sets/index.ts';
import { permissionFlagsRoute } from './system/permission-flags.route.ts';
import { currentSessionRoute } from './auth/current-session.route.ts';
import { assetQueryRoutes } from './assets/index.ts';
import { assetNoteQueryRoutes } from './asset-notes/index.ts';
import { collectionQueryRoutes } from './collections/index.ts';
import { storageQueryRoutes } from './storage/index.ts';
import { webhookQueryRoutes } from './webhooks/index.ts';
import { listChangesRoute } from './changes/list-changes.route.ts';

export type { QueryDeps } from './deps.ts';
export { ReadCache } from './read-cache/read-cache.ts';
export { KeptViewerFacts } from './assets/kept-viewer-facts.ts';
export { everyCollection } from './collections/every-collection.ts';
export { createCostlyReads, type CostlyReads } from './costly-reads/costly-reads.ts';
export * from './changes/index.ts';
export { apiDocsClientId, apiDocsRedirectPath, mountApiDocs } from './system/api-docs.ts';

/** Every read of the interface (GET, and later the read-only POSTs). */
export function queryOperations(deps: QueryDeps): BoundOperation[] {
  return [listFundingAgenciesRoute(deps), getFundingAgencyRoute(deps), ...groupQueryRoutes(deps), ...adminQueryRoutes(deps), ...organizationQueryRoutes(deps), ...projectQueryRoutes(deps), ...countrySetQueryRoutes(deps), ...assetQueryRoutes(deps), ...assetNoteQueryRoutes(deps), ...collectionQueryRoutes(deps), ...storageQueryRoutes(deps), listChangesRoute(deps), ...webhookQueryRoutes(deps), permissionFlagsRoute(), currentSessionRoute()];
}
