import { listAssetPermissions } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { openAsset, permissionEntries } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

/** Anyone who may read the asset sees who else may (docs/assets.md). */
export const listAssetPermissionsRoute = (deps: QueryDeps) =>
  implement(listAssetPermissions, async ({ params, context, req }) => {
    const { asset } = await openAsset(deps, params['id'] ?? '', context.caller, req);
    return { status: 200, body: (await permissionEntries(deps.db, [asset.id])).get(asset.id) ?? [] };
  });
