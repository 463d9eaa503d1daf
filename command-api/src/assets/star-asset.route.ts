import { assets } from '@cairn/domain';
import { starAsset, unstarAsset } from '@cairn/contract';
import { implement, type RequestContext } from '@cairn/platform';
import type { Request } from 'express';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { openAssetFor } from './asset-access.ts';

async function setStar(deps: CommandDeps, type: 'StarAsset' | 'UnstarAsset', id: assets.AssetId, context: RequestContext, req: Request) {
  const { authority } = await openAssetFor(deps, id, context, req);
  return runCommand(deps, context, { decider: assets.assetDecider, stream: assets.assetStream(id), command: { type, id, authority } }, { status: 204 });
}

export const starAssetRoute = (deps: CommandDeps) => implement(starAsset, async ({ params, context, req }) => setStar(deps, 'StarAsset', params['id'] as assets.AssetId, context, req));

export const unstarAssetRoute = (deps: CommandDeps) => implement(unstarAsset, async ({ params, context, req }) => setStar(deps, 'UnstarAsset', params['id'] as assets.AssetId, context, req));
