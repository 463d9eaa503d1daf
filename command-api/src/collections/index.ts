import type { BoundOperation } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { attachCollectionAssetsRoute } from './attach-collection-assets.route.ts';
import { createCollectionRoute } from './create-collection.route.ts';
import { deleteCollectionRoute } from './delete-collection.route.ts';
import { detachCollectionAssetRoute } from './detach-collection-asset.route.ts';
import { replaceCollectionPermissionsRoute } from './replace-collection-permissions.route.ts';
import { updateCollectionRoute } from './update-collection.route.ts';

export function collectionCommandRoutes(deps: CommandDeps): BoundOperation[] {
  return [createCollectionRoute(deps), updateCollectionRoute(deps), deleteCollectionRoute(deps), attachCollectionAssetsRoute(deps), detachCollectionAssetRoute(deps), replaceCollectionPermissionsRoute(deps)];
}
