import { getFundingAgency } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { findFundingAgency, presentFundingAgency } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

export const getFundingAgencyRoute = (deps: QueryDeps) =>
  implement(getFundingAgency, async ({ params }) => {
    const row = await findFundingAgency(deps.db, params['id'] ?? '');
    if (!row) throw httpErrors.notFound('Funding agency not found.');
    return { status: 200, body: presentFundingAgency(row) };
  });
