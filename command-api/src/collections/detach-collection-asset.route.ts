import { assets, permissionBits } from '@cairn/domain';
import { detachCollectionAsset } from '@cairn/contract';
import { HttpError, httpErrors, implement } from '@cairn/platform';
import { assetStanding } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { callerOf, openCollectionFor } from './collection-access.ts';

/**
 * WRITE_METADATA on the collection, or MANAGE on the asset: the decider decides
 * (DECISIONS.md 2). Whoever manages the asset may take it out of a collection they cannot
 * see, so that no attachment is beyond its manager's undoing; for them a hidden collection
 * and a missing one answer alike (the asset is not in it, as far as they may know).
 */
export const detachCollectionAssetRoute = (deps: CommandDeps) =>
  implement(detachCollectionAsset, async ({ params, context, req }) => {
    const caller = callerOf(context);
    const collectionId = params['id'] ?? '';
    const id = (params['asset_id'] ?? '') as assets.AssetId;
    let collectionFlags = 0;
    let standing: Awaited<ReturnType<typeof assetStanding>> | undefined;
    try {
      collectionFlags = (await openCollectionFor(deps, collectionId, caller, req)).collection.effective_flags;
    } catch (error) {
      if (!(error instanceof HttpError && error.status === 404)) throw error;
      standing = await assetStanding(deps.db, id, caller);
      if (!standing.asset || (standing.asset.flags & permissionBits.MANAGE) === 0) throw error;
    }
    standing ??= await assetStanding(deps.db, id, caller);
    if (!standing.asset || (standing.asset.flags & permissionBits.READ_METADATA) === 0) throw httpErrors.notFound('Asset not found.');
    return runCommand(
      deps,
      context,
      {
        decider: assets.assetDecider,
        stream: assets.assetStream(id),
        command: { type: 'DetachFromCollection', id, collectionId, collectionFlags, authority: { principals: standing.principals, inheritedFlags: standing.asset.inheritedFlags } },
      },
      { status: 204 },
    );
  });
