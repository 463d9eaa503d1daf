import type { BoundOperation } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { bulkMergeAssetPermissionsRoute } from './bulk-merge-asset-permissions.route.ts';
import { createAssetRoute } from './create-asset.route.ts';
import { deleteAssetRoute } from './delete-asset.route.ts';
import { lockAssetRoute } from './lock-asset.route.ts';
import { replaceAssetPermissionsRoute } from './replace-asset-permissions.route.ts';
import { starAssetRoute, unstarAssetRoute } from './star-asset.route.ts';
import { updateAssetRoute } from './update-asset.route.ts';

export function assetCommandRoutes(deps: CommandDeps): BoundOperation[] {
  return [
    createAssetRoute(deps),
    updateAssetRoute(deps),
    deleteAssetRoute(deps),
    lockAssetRoute(deps),
    starAssetRoute(deps),
    unstarAssetRoute(deps),
    replaceAssetPermissionsRoute(deps),
    bulkMergeAssetPermissionsRoute(deps),
  ];
}
