import type { BoundOperation } from '@cairn/platform';
import type { QueryDeps } from '../deps.ts';
import { getCollectionRoute } from './get-collection.route.ts';
import { listCollectionAssetsRoute } from './list-collection-assets.route.ts';
import { listCollectionPermissionsRoute } from './list-collection-permissions.route.ts';
import { listCollectionsRoute } from './list-collections.route.ts';

export function collectionQueryRoutes(deps: QueryDeps): BoundOperation[] {
  return [listCollectionsRoute(deps), getCollectionRoute(deps), listCollectionAssetsRoute(deps), listCollectionPermissionsRoute(deps)];
}
