import { getAdminUser } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { findAdminUser, presentAdminUser } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';
import { requireSystemAdmin } from './system-admin-only.ts';

export const getAdminUserRoute = (deps: QueryDeps) =>
  implement(getAdminUser, async ({ params, context }) => {
    requireSystemAdmin(context);
    const record = await findAdminUser(deps.db, params['id'] ?? '');
    if (!record) throw httpErrors.notFound('User not found.');
    return { status: 200, body: presentAdminUser(record) };
  });
