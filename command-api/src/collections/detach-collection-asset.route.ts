import { assets, permissionBits } from '@cairn/domain';
import { detachCollectionAsset } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { assetStanding } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { callerOf, openCollectionFor } from './collection-access.ts';

export const detachCollectionAssetRoute = (deps: CommandDeps) =>
  implement(detachCollectionAsset, async ({ params, context, req }) => {
    const caller = callerOf(context);
    const collectionId = params['id'] ?? '';
    const { collection } = await openCollectionFor(deps, collectionId, caller, req);
    if (!caller.isSystemAdmin && (collection.effective_flags & permissionBits.WRITE_METADATA) === 0) throw httpErrors.forbidden('You lack the WRITE_METADATA permission on the collection.');
    const id = (params['asset_id'] ?? '') as assets.AssetId;
    const standing = await assetStanding(deps.db, id, caller);
    if (!standing.asset || (standing.asset.flags & permissionBits.READ_METADATA) === 0) throw httpErrors.notFound('Asset not found.');
    return runCommand(
      deps,
      context,
      {
        decider: assets.assetDecider,
        stream: assets.assetStream(id),
        command: { type: 'DetachFromCollection', id, collectionId, collectionFlags: collection.effective_flags, authority: { principals: standing.principals, inheritedFlags: standing.asset.inheritedFlags } },
      },
      { status: 204 },
    );
  });
