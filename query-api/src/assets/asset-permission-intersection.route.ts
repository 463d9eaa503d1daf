import { permissionBits } from '@cairn/domain';
import { assetPermissionIntersection } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { assetsStanding, enforceProjectRestriction, intersectEntries, permissionEntries } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

export const assetPermissionIntersectionRoute = (deps: QueryDeps) =>
  implement(assetPermissionIntersection, async ({ body, context, req }) => {
    const caller = context.caller;
    if (!caller) throw httpErrors.unauthenticated();
    const ids = [...new Set(body.asset_ids.map((id) => id.toLowerCase()))];
    const standing = await assetsStanding(deps.db, ids, caller);
    for (const id of ids) {
      const asset = standing.assets.get(id);
      if (!asset || (asset.flags & permissionBits.READ_METADATA) === 0) throw httpErrors.notFound(`Asset not found: ${id}.`);
    }
    const owners = new Set([...standing.assets.values()].filter((a) => a.ownerType === 'project').map((a) => a.ownerId));
    for (const projectId of owners) await enforceProjectRestriction(deps, projectId, caller, req);
    const entries = await permissionEntries(deps.db, ids);
    return { status: 200, body: intersectEntries(ids.map((id) => entries.get(id) ?? [])) };
  });
