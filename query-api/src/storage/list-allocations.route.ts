import { listAllocations } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { listAllocations as readAllocations, presentAllocation, principalsOf } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

/** Interface 4.2: `organization_id` needs a system administrator or an admin of that organization (403 otherwise). */
export const listAllocationsRoute = (deps: QueryDeps) =>
  implement(listAllocations, async ({ query, context }) => {
    const caller = context.caller;
    if (!caller) throw httpErrors.unauthenticated();
    const organizationId = query.organization_id?.toLowerCase();
    if (organizationId && !caller.isSystemAdmin && !(await principalsOf(deps.db, caller.userId)).includes(`oa:${organizationId}`)) {
      throw httpErrors.forbidden('Listing an organization’s allocations needs a system administrator or an admin of that organization.');
    }
    const rows = await readAllocations(
      deps.db,
      { organizationId, ownerId: query.owner_id?.toLowerCase(), ownerType: query.owner_type, repositoryId: query.repository_id?.toLowerCase() },
      caller,
    );
    return { status: 200, body: rows.map(presentAllocation) };
  });
