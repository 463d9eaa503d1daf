import { getCountrySet } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { findVisibleCountrySet, presentCountrySet } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

export const getCountrySetRoute = (deps: QueryDeps) =>
  implement(getCountrySet, async ({ params, context }) => {
    const caller = context.caller;
    if (!caller) throw httpErrors.unauthenticated();
    const record = await findVisibleCountrySet(deps.db, params['id'] ?? '', caller);
    if (!record) throw httpErrors.notFound('Country set not found.');
    return { status: 200, body: presentCountrySet(record) };
  });
