import { getAsset } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { openAsset } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

export const getAssetRoute = (deps: QueryDeps) =>
  implement(getAsset, async ({ params, context, req }) => {
    const { asset } = await openAsset(deps, params['id'] ?? '', context.caller, req);
    return { status: 200, rawJson: asset.json };
  });
