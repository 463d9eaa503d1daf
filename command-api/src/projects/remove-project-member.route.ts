import { projects, type UserId } from '@cairn/domain';
import { removeProjectMember } from '@cairn/contract';
import { implement } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { authorityOf, openProjectFor } from './project-access.ts';

export const removeProjectMemberRoute = (deps: CommandDeps) =>
  implement(removeProjectMember, async ({ params, context, req }) => {
    const id = params['id'] as projects.ProjectId;
    const { project } = await openProjectFor(deps, id, context, req);
    return runCommand(
      deps,
      context,
      { decider: projects.projectDecider, stream: projects.projectStream(id), command: { type: 'RemoveProjectMember', id, userId: params['user_id'] as UserId, authority: authorityOf(project) } },
      { status: 204 },
    );
  });
