import { getOrganization } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { findOrganization, presentOrganization } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

/** Members and system administrators see an organization; to anyone else it does not exist. */
export const getOrganizationRoute = (deps: QueryDeps) =>
  implement(getOrganization, async ({ params, context }) => {
    if (!context.caller) throw httpErrors.unauthenticated();
    const record = await findOrganization(deps.db, params['id'] ?? '', context.caller);
    if (!record) throw httpErrors.notFound('Organization not found.');
    return { status: 200, body: presentOrganization(record) };
  });
