import { assetPermissionIntersection } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { intersectEntries, openAssets, permissionEntries } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

export const assetPermissionIntersectionRoute = (deps: QueryDeps) =>
  implement(assetPermissionIntersection, async ({ body, context, req }) => {
    const caller = context.caller;
    if (!caller) throw httpErrors.unauthenticated();
    const { ids } = await openAssets(deps, body.asset_ids, caller, req);
    const entries = await permissionEntries(deps.db, ids, caller);
    return { status: 200, body: intersectEntries(ids.map((id) => entries.get(id) ?? [])) };
  });
