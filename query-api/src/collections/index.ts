import type { BoundOperation } from '@cairn/platform';
import type { QueryDeps } from '../deps.ts';
import { cachedOperation } from '../read-cache/cached-operation.ts';
import { getCollectionRoute } from './get-collection.route.ts';
import { listCollectionAssetsRoute } from './list-collection-assets.route.ts';
import { listCollectionPermissionsRoute } from './list-collection-permissions.route.ts';
import { listCollectionsRoute } from './list-collections.route.ts';

export function collectionQueryRoutes(deps: QueryDeps): BoundOperation[] {
  return [listCollectionsRoute(deps), getCollectionRoute(deps), listCollectionAssetsRoute(deps), listCollectionPermissionsRoute(deps)].map((operation) =>
    cachedOperation(deps, deps.readCache, operation),
  );
}
