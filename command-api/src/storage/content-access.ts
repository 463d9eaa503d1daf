import { DomainError, storage, type PermissionName } from '@cairn/domain';
import { httpErrors, type Caller, type RequestContext } from '@cairn/platform';
import { findContent, migrationUnderWay, type ContentRow, type OpenAsset } from '@cairn/projections';
import type { Request } from 'express';
import { openAssetFor } from '../assets/asset-access.ts';
import type { CommandDeps } from '../deps.ts';

export type ContentTarget = { readonly caller: Caller; readonly open: OpenAsset };

/**
 * The asset a content route works on (404 when hidden), then the flag it needs (403), then
 * for writes the lock (423) and a migration under way (409): docs/storage.md.
 */
export async function openContentAsset(deps: CommandDeps, assetId: string, context: RequestContext, req: Request, need: PermissionName, write: boolean): Promise<ContentTarget> {
  const { caller, open } = await openAssetFor(deps, assetId, context, req);
  const migrating = write ? await migrationUnderWay(deps.db, open.asset.id) : false;
  storage.requireContentAccess({ flags: open.asset.flags, locked: open.asset.isLocked, migrating }, need, write);
  return { caller, open };
}

export async function contentOf(deps: CommandDeps, assetId: string, contentId: string): Promise<ContentRow> {
  const row = await findContent(deps.db, assetId, contentId);
  if (!row) throw httpErrors.notFound('Content not found.');
  return row;
}

/** Field refusals of the storage domain name their field (400), as the contract's own would. */
export function contentFieldErrors(error: unknown): never {
  if (error instanceof DomainError && error.kind === 'invalid' && error.code.startsWith('invalid_')) {
    throw httpErrors.validation({ [error.code.slice('invalid_'.length)]: [error.message] });
  }
  throw error;
}
