import { getAllocation } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { allocationStanding, presentAllocation } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

export const getAllocationRoute = (deps: QueryDeps) =>
  implement(getAllocation, async ({ params, context }) => {
    if (!context.caller) throw httpErrors.unauthenticated();
    const standing = await allocationStanding(deps.db, params['id'] ?? '', context.caller);
    if (!standing?.visible) throw httpErrors.notFound('Allocation not found.');
    return { status: 200, body: presentAllocation(standing.row) };
  });
