import { httpErrors, type RequestContext } from '@cairn/platform';
import { allocationStanding, type AllocationStanding } from '@cairn/projections';
import { callerOf } from '../assets/asset-access.ts';
import type { CommandDeps } from '../deps.ts';

/** The allocation a route writes to: 404 when it does not exist or the caller cannot see it. */
export async function openAllocation(deps: CommandDeps, id: string, context: RequestContext): Promise<AllocationStanding> {
  const standing = await allocationStanding(deps.db, id, callerOf(context));
  if (!standing?.visible) throw httpErrors.notFound('Allocation not found.');
  return standing;
}
