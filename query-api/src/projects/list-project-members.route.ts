import { listProjectMembers } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { listProjectMembers as readProjectMembers, openProject, presentProjectMember } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

/** Everyone who sees the project sees its members, viewers included. */
export const listProjectMembersRoute = (deps: QueryDeps) =>
  implement(listProjectMembers, async ({ params, context, req }) => {
    const caller = context.caller;
    if (!caller) throw httpErrors.unauthenticated();
    const project = await openProject(deps, params['id'] ?? '', caller, req);
    const members = await readProjectMembers(deps.db, project.id);
    return { status: 200, body: members.map(presentProjectMember) };
  });
