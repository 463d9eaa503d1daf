import { assets } from '@cairn/domain';
import { lockAsset } from '@cairn/contract';
import { implement } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { fieldErrors, openAssetFor, readBackAsset } from './asset-access.ts';

export const lockAssetRoute = (deps: CommandDeps) =>
  implement(lockAsset, async ({ params, body, context, req }) => {
    const id = params['id'] as assets.AssetId;
    const { caller, authority } = await openAssetFor(deps, id, context, req);
    return runCommand(
      deps,
      context,
      { decider: assets.assetDecider, stream: assets.assetStream(id), command: { type: 'LockAsset', id, authority, locked: body.locked, reason: body.reason }, onError: fieldErrors },
      { status: 200, ...readBackAsset(deps, id, caller) },
    );
  });
