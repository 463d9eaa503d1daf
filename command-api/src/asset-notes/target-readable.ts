import { permissionBits } from '@cairn/domain';
import { HttpError, type Caller } from '@cairn/platform';
import { assetStanding, enforceProjectRestriction } from '@cairn/projections';
import type { Request } from 'express';
import type { CommandDeps } from '../deps.ts';

/**
 * Whether the caller may read the target's metadata. A target that is hidden, missing, or
 * behind its project's geographic restriction gets the same answer (DECISIONS.md 1), so
 * that the existence of hidden assets cannot be probed through links.
 */
export async function targetReadable(deps: CommandDeps, targetId: string, caller: Caller, req: Request): Promise<boolean> {
  const { asset } = await assetStanding(deps.db, targetId, caller);
  if (!asset || (asset.flags & permissionBits.READ_METADATA) === 0) return false;
  if (!asset.ownerRestricted) return true;
  try {
    await enforceProjectRestriction(deps, asset.ownerId, caller, req);
    return true;
  } catch (error) {
    if (error instanceof HttpError && error.status === 403) return false;
    throw error;
  }
}
