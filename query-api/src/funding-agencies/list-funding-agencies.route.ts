import { listFundingAgencies } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { listFundingAgencies as readFundingAgencies, presentFundingAgency } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

export const listFundingAgenciesRoute = (deps: QueryDeps) =>
  implement(listFundingAgencies, async ({ query }) => {
    const rows = await readFundingAgencies(deps.db, { q: query.q });
    return { status: 200, body: rows.map(presentFundingAgency) };
  });
