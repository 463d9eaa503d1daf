import { listCountrySets } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { listVisibleCountrySets, presentCountrySet } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

export const listCountrySetsRoute = (deps: QueryDeps) =>
  implement(listCountrySets, async ({ query, context }) => {
    const caller = context.caller;
    if (!caller) throw httpErrors.unauthenticated();
    const rows = await listVisibleCountrySets(deps.db, caller, { organizationId: query.organization_id?.toLowerCase(), kind: query.kind });
    return { status: 200, body: rows.map(presentCountrySet) };
  });
