import { assets } from '@cairn/domain';
import { deleteAsset } from '@cairn/contract';
import { implement } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { openAssetFor } from './asset-access.ts';

export const deleteAssetRoute = (deps: CommandDeps) =>
  implement(deleteAsset, async ({ params, context, req }) => {
    const id = params['id'] as assets.AssetId;
    const { authority } = await openAssetFor(deps, id, context, req);
    return runCommand(deps, context, { decider: assets.assetDecider, stream: assets.assetStream(id), command: { type: 'DeleteAsset', id, authority } }, { status: 204 });
  });
