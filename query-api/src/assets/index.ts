import type { BoundOperation } from '@cairn/platform';
import type { QueryDeps } from '../deps.ts';
import { assetPermissionIntersectionRoute } from './asset-permission-intersection.route.ts';
import { getAssetRoute } from './get-asset.route.ts';
import { listAssetPermissionsRoute } from './list-asset-permissions.route.ts';

export function assetQueryRoutes(deps: QueryDeps): BoundOperation[] {
  return [getAssetRoute(deps), listAssetPermissionsRoute(deps), assetPermissionIntersectionRoute(deps)];
}
