import { getGroup } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { presentGroup } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';
import { visibleGroup } from './visible-group.ts';

export const getGroupRoute = (deps: QueryDeps) =>
  implement(getGroup, async ({ params, context }) => {
    const row = await visibleGroup(deps.db, params['id'] ?? '', context.caller);
    return { status: 200, body: presentGroup(row) };
  });
