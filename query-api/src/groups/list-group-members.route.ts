import { listGroupMembers } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { listGroupMembers as readGroupMembers, presentGroupMember } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';
import { visibleGroup } from './visible-group.ts';

export const listGroupMembersRoute = (deps: QueryDeps) =>
  implement(listGroupMembers, async ({ params, context }) => {
    const group = await visibleGroup(deps.db, params['id'] ?? '', context.caller);
    const rows = await readGroupMembers(deps.db, group.id);
    return { status: 200, body: rows.map(presentGroupMember) };
  });
