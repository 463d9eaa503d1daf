import { projects, type UserId } from '@cairn/domain';
import { removeProjectMember } from '@cairn/contract';
import { executeCommand, implement } from '@cairn/platform';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { authorityOf, openProjectFor } from './project-access.ts';

export const removeProjectMemberRoute = (deps: CommandDeps) =>
  implement(removeProjectMember, async ({ params, context, req }) => {
    const id = params['id'] as projects.ProjectId;
    const { project } = await openProjectFor(deps, id, context, req);
    const outcome = await executeCommand(
      deps.eventStore,
      projects.projectDecider,
      projects.projectStream(id),
      { type: 'RemoveProjectMember', id, userId: params['user_id'] as UserId, authority: authorityOf(project) },
      commandContext(context),
      commandMetadata(context),
    );
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    return { status: 204, position: outcome.position };
  });
