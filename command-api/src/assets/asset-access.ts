import type { assets} from '@cairn/domain';
import { DomainError } from '@cairn/domain';
import { httpErrors, type Caller, type RequestContext } from '@cairn/platform';
import { assetStanding, assetStandingRead, openAsset, type OpenAsset } from '@cairn/projections';
import type { Request } from 'express';
import type { CommandDeps } from '../deps.ts';

export function callerOf(context: RequestContext): Caller {
  if (!context.caller) throw httpErrors.unauthenticated();
  return context.caller;
}

/** The asset the route writes to (404 when hidden, then its owner project's restriction), with the caller's authority. */
export async function openAssetFor(deps: CommandDeps, assetId: string, context: RequestContext, req: Request): Promise<{ caller: Caller; open: OpenAsset; authority: assets.AssetAuthority }> {
  const caller = callerOf(context);
  const open = await openAsset(deps, assetId, caller, req);
  return { caller, open, authority: { principals: open.principals, inheritedFlags: open.asset.inheritedFlags } };
}

/** The asset read back after a write, as the caller sees it, as the JSON PostgreSQL built. */
export function readBackAsset(deps: CommandDeps, assetId: string, caller: Caller) {
  const inAppend = assetStandingRead(deps.db, assetId, caller);
  return {
    read: async () => (await assetStanding(deps.db, assetId, caller, { evenHidden: true })).asset ?? undefined,
    readAfterAppend: { statement: inAppend.statement, fromRows: (rows: readonly Record<string, unknown>[]) => inAppend.standing(rows).asset ?? undefined },
    present: (asset: { json: string }) => asset.json,
    raw: true,
    notFound: 'Asset not found.',
  } as const;
}

/** Domain refusals about fields become field errors (400 naming the field), as the contract's own would. */
export function fieldErrors(error: unknown): never {
  if (error instanceof DomainError && error.kind === 'invalid' && error.code.startsWith('invalid_')) {
    throw httpErrors.validation({ [error.code.slice('invalid_'.length)]: [error.message] });
  }
  throw error;
}
