import { listAssetPermissions } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { openAsset, permissionEntries } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

/** Anyone who may read the asset sees who else may (docs/assets.md). */
export const listAssetPermissionsRoute = (deps: QueryDeps) =>
  implement(listAssetPermissions, async ({ params, context, req }) => {
    const { asset } = await openAsset(deps, params['id'] ?? '', context.caller, req);
    // openAsset refuses anonymous callers, so the caller is known here.
    const viewer = { userId: context.caller?.userId ?? null, isSystemAdmin: context.caller?.isSystemAdmin ?? false };
    return { status: 200, body: (await permissionEntries(deps.db, [asset.id], viewer)).get(asset.id) ?? [] };
  });
