import { assets, permissionBits } from '@cairn/domain';
import { updateAsset } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { ownerExists } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { fieldErrors, openAssetFor, readBackAsset } from './asset-access.ts';

// Unknown, hidden, or not one the caller may give assets to: one answer (DECISIONS.md 1, docs/http.md).
const unknownOwner = () => httpErrors.unknownReference('owner_id', 'The owner was not found.');

export const updateAssetRoute = (deps: CommandDeps) =>
  implement(updateAsset, async ({ params, body, context, req }) => {
    const id = params['id'] as assets.AssetId;
    const { caller, authority, open } = await openAssetFor(deps, id, context, req);
    const changes: { -readonly [K in keyof assets.AssetDetails]?: assets.AssetDetails[K] } = {};
    if (body.title !== undefined) changes.title = body.title;
    if (body.alias !== undefined) changes.alias = body.alias;
    if (body.description !== undefined) changes.description = body.description;
    if (body.record_type !== undefined) changes.recordType = body.record_type;
    if (body.tags !== undefined) changes.tags = body.tags;
    if (body.metadata !== undefined) changes.metadata = body.metadata as assets.JsonObject;
    let owner: assets.AssetOwner | undefined;
    if (body.owner_type !== undefined || body.owner_id !== undefined) {
      if (body.owner_type === undefined || body.owner_id === undefined) throw httpErrors.validation({ owner_id: ['Send owner_type and owner_id together to give the asset away.'] });
      owner = { ownerType: body.owner_type, ownerId: body.owner_id.toLowerCase() };
      // Who may not give the asset away learns that before the new owner is looked up, so that ids cannot be probed (DECISIONS.md 1).
      const givesAway = owner.ownerType !== open.asset.ownerType || owner.ownerId !== open.asset.ownerId;
      if (givesAway && (open.asset.flags & permissionBits.MANAGE) === 0) throw assets.assetErrors.lacks('MANAGE');
      if (!(await ownerExists(deps.db, owner.ownerType, owner.ownerId))) throw unknownOwner();
    }
    const onError = (error: unknown): never => {
      // Giving the asset to an owner the caller may not create for: the owner is at fault.
      if (owner && error instanceof Error && 'code' in error && error.code === 'permission_denied' && error.message.startsWith('You may create assets only')) {
        throw unknownOwner();
      }
      return fieldErrors(error);
    };
    return runCommand(
      deps,
      context,
      { decider: assets.assetDecider, stream: assets.assetStream(id), command: { type: 'ChangeAsset', id, authority, changes, owner }, onError },
      { status: 200, ...readBackAsset(deps, id, caller) },
    );
  });
