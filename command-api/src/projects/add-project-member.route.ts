import { projects, type UserId } from '@cairn/domain';
import { addProjectMember } from '@cairn/contract';
import { executeCommand, httpErrors, implement } from '@cairn/platform';
import { findProjectMember, isActiveUser, presentProjectMember } from '@cairn/projections';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { authorityOf, openProjectFor, requireManage } from './project-access.ts';

export const addProjectMemberRoute = (deps: CommandDeps) =>
  implement(addProjectMember, async ({ params, body, context, req }) => {
    const id = params['id'] as projects.ProjectId;
    const { caller, project } = await openProjectFor(deps, id, context, req);
    requireManage(project, caller);
    const userId = body.user_id.toLowerCase() as UserId;
    if (!(await isActiveUser(deps.db, userId))) throw httpErrors.validation({ user_id: ['Unknown or deactivated user.'] });
    const outcome = await executeCommand(
      deps.eventStore,
      projects.projectDecider,
      projects.projectStream(id),
      { type: 'AddProjectMember', id, userId, role: body.role, authority: authorityOf(project) },
      commandContext(context),
      commandMetadata(context),
    );
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    const member = await findProjectMember(deps.db, id, userId);
    if (!member) throw httpErrors.notFound();
    return { status: 201, body: presentProjectMember(member), position: outcome.position, headers: { Location: `/api/projects/${id}/members/${userId}/` } };
  });
