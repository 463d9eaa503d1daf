import type { BoundOperation } from '@cairn/platform';
import type { QueryDeps } from '../deps.ts';
import { cachedOperation } from '../read-cache/cached-operation.ts';
import { assetPermissionIntersectionRoute } from './asset-permission-intersection.route.ts';
import { getAssetRoute } from './get-asset.route.ts';
import { listAssetPermissionsRoute } from './list-asset-permissions.route.ts';
import { listAssetsRoute } from './list-assets.route.ts';
import { queryAssetsRoute } from './query-assets.route.ts';

export function assetQueryRoutes(deps: QueryDeps): BoundOperation[] {
  return [listAssetsRoute(deps), queryAssetsRoute(deps), getAssetRoute(deps), listAssetPermissionsRoute(deps), assetPermissionIntersectionRoute(deps)].map((operation) =>
    cachedOperation(deps, deps.readCache, operation),
  );
}
