import { projects, type UserId } from '@cairn/domain';
import { addProjectMember } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { findProjectMember, isActiveUser, presentProjectMember } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { authorityOf, openProjectFor, requireManage } from './project-access.ts';

export const addProjectMemberRoute = (deps: CommandDeps) =>
  implement(addProjectMember, async ({ params, body, context, req }) => {
    const id = params['id'] as projects.ProjectId;
    const { caller, project } = await openProjectFor(deps, id, context, req);
    requireManage(project, caller);
    const userId = body.user_id.toLowerCase() as UserId;
    // A deactivated user is answered like one that does not exist (DECISIONS.md 1).
    if (!(await isActiveUser(deps.db, userId))) throw httpErrors.unknownReference('user_id', 'The user was not found.');
    return runCommand(
      deps,
      context,
      { decider: projects.projectDecider, stream: projects.projectStream(id), command: { type: 'AddProjectMember', id, userId, role: body.role, authority: authorityOf(project) } },
      { status: 201, read: () => findProjectMember(deps.db, id, userId), present: presentProjectMember, headers: { Location: `/api/projects/${id}/members/${userId}/` } },
    );
  });
