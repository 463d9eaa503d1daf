import { assets, lackedPermissions, permissionBits } from '@cairn/domain';
import { attachCollectionAssets } from '@cairn/contract';
import { executeCommands, httpErrors, implement } from '@cairn/platform';
import { assetsStanding, refuseUnreadableAssets } from '@cairn/projections';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { callerOf, openCollectionFor } from './collection-access.ts';

/** All or nothing: every asset is checked, then all are attached in one atomic append. */
export const attachCollectionAssetsRoute = (deps: CommandDeps) =>
  implement(attachCollectionAssets, async ({ params, body, context, req }) => {
    const caller = callerOf(context);
    const collectionId = params['id'] ?? '';
    const { collection } = await openCollectionFor(deps, collectionId, caller, req);
    if (!caller.isSystemAdmin && (collection.effective_flags & permissionBits.WRITE_METADATA) === 0) throw httpErrors.forbidden(lackedPermissions(['WRITE_METADATA'], 'the collection'));
    const ids = [...new Set(body.asset_ids.map((a) => a.toLowerCase()))];
    const standing = await assetsStanding(deps.db, ids, caller);
    refuseUnreadableAssets('asset_ids', body.asset_ids, standing.assets);
    const outcome = await executeCommands(
      deps.eventStore,
      assets.assetDecider,
      ids.map((id) => ({
        streamId: assets.assetStream(id),
        command: {
          type: 'AttachToCollection',
          id: id as assets.AssetId,
          collectionId,
          collectionFlags: collection.effective_flags,
          authority: { principals: standing.principals, inheritedFlags: standing.assets.get(id)?.inheritedFlags ?? 0 },
        } as const,
      })),
      commandContext(context),
      commandMetadata(context),
    );
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    return { status: 204, position: outcome.position };
  });
