import { listGroups } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { listGroups as readGroups, presentGroup } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

export const listGroupsRoute = (deps: QueryDeps) =>
  implement(listGroups, async ({ query, context }) => {
    const caller = context.caller;
    if (!caller) throw httpErrors.unauthenticated();
    const memberId = query.user === undefined ? undefined : query.user === 'me' ? caller.userId : query.user.toLowerCase();
    const rows = await readGroups(deps.db, { visibleTo: caller.isSystemAdmin ? null : caller.userId, memberId, q: query.q });
    return { status: 200, body: rows.map(presentGroup) };
  });
