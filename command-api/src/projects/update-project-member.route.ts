import { projects, type UserId } from '@cairn/domain';
import { updateProjectMember } from '@cairn/contract';
import { executeCommand, httpErrors, implement } from '@cairn/platform';
import { findProjectMember, presentProjectMember } from '@cairn/projections';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { authorityOf, openProjectFor } from './project-access.ts';

export const updateProjectMemberRoute = (deps: CommandDeps) =>
  implement(updateProjectMember, async ({ params, body, context, req }) => {
    const id = params['id'] as projects.ProjectId;
    const userId = params['user_id'] as UserId;
    const { project } = await openProjectFor(deps, id, context, req);
    const outcome = await executeCommand(
      deps.eventStore,
      projects.projectDecider,
      projects.projectStream(id),
      { type: 'ChangeProjectMemberRole', id, userId, role: body.role, authority: authorityOf(project) },
      commandContext(context),
      commandMetadata(context),
    );
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    const member = await findProjectMember(deps.db, id, userId);
    if (!member) throw httpErrors.notFound();
    return { status: 200, body: presentProjectMember(member), position: outcome.position };
  });
