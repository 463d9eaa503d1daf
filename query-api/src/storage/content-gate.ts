import { lackedPermissions, permissionBits, type PermissionName } from '@cairn/domain';
import { httpErrors, type Caller } from '@cairn/platform';
import { openAsset, type OpenAsset } from '@cairn/projections';
import type { Request } from 'express';
import type { QueryDeps } from '../deps.ts';

/** The asset (404 when hidden), then the flag the read needs (403). */
export async function openForRead(deps: QueryDeps, assetId: string, caller: Caller | null, req: Request, need: PermissionName): Promise<OpenAsset> {
  const open = await openAsset(deps, assetId, caller, req);
  if ((open.asset.flags & permissionBits[need]) === 0) throw httpErrors.forbidden(lackedPermissions([need], 'this asset'));
  return open;
}
