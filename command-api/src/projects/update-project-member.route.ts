import { projects, type UserId } from '@cairn/domain';
import { updateProjectMember } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { findProjectMember, presentProjectMember } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { authorityOf, openProjectFor } from './project-access.ts';

export const updateProjectMemberRoute = (deps: CommandDeps) =>
  implement(updateProjectMember, async ({ params, body, context, req }) => {
    const id = params['id'] as projects.ProjectId;
    const userId = params['user_id'] as UserId;
    const { project } = await openProjectFor(deps, id, context, req);
    return runCommand(
      deps,
      context,
      { decider: projects.projectDecider, stream: projects.projectStream(id), command: { type: 'ChangeProjectMemberRole', id, userId, role: body.role, authority: authorityOf(project) } },
      { status: 200, read: () => findProjectMember(deps.db, id, userId), present: presentProjectMember },
    );
  });
