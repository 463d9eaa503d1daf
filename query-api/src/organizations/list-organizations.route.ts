import { listOrganizations } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { listOrganizations as readOrganizations, presentOrganization } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

export const listOrganizationsRoute = (deps: QueryDeps) =>
  implement(listOrganizations, async ({ context }) => {
    if (!context.caller) throw httpErrors.unauthenticated();
    const records = await readOrganizations(deps.db, context.caller);
    return { status: 200, body: records.map(presentOrganization) };
  });
