import { listAdminUsers } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { listAdminUsers as readAdminUsers, presentAdminUser } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';
import { requireSystemAdmin } from './system-admin-only.ts';

/**
 * DECISIONS.md 3: `{count, next, previous, results}`, pages from 1. `next` and `previous`
 * are absolute, built from the public URL, and keep every other query parameter as sent.
 */
export const listAdminUsersRoute = (deps: QueryDeps) =>
  implement(listAdminUsers, async ({ query, context, req }) => {
    requireSystemAdmin(context);
    const { page, page_size: pageSize } = query;
    const { count, users } = await readAdminUsers(deps.db, {
      q: query.q,
      includeDeactivated: query.include_deactivated,
      limit: pageSize,
      offset: (page - 1) * pageSize,
    });
    // Like Django REST framework: the first page always exists, a page past the last does not.
    if (page > 1 && users.length === 0) throw httpErrors.notFound('Invalid page.');

    const pageUrl = (n: number) => {
      const params = new URL(req.originalUrl, 'http://request.invalid').searchParams;
      params.set('page', String(n));
      return `${deps.publicUrl}${listAdminUsers.path}?${params.toString()}`;
    };
    return {
      status: 200,
      body: {
        count,
        next: page * pageSize < count ? pageUrl(page + 1) : null,
        previous: page > 1 ? pageUrl(page - 1) : null,
        results: users.map(presentAdminUser),
      },
    };
  });
