import { collections, projects, type OrganizationId } from '@cairn/domain';
import { createProject } from '@cairn/contract';
import { implement, newId } from '@cairn/platform';
import { commandContext, type CommandDeps } from '../deps.ts';
import { executeStep, runCommand } from '../run-command.ts';
import { callerOf, readBackProject, requireOrganizationStanding } from './project-access.ts';

export const createProjectRoute = (deps: CommandDeps) =>
  implement(createProject, async ({ body, context }) => {
    const caller = callerOf(context);
    const organizationId = body.organization_id.toLowerCase() as OrganizationId;
    const standing = await requireOrganizationStanding(deps.db, organizationId, caller);
    const id = newId(context) as projects.ProjectId;
    const rootCollectionId = newId(context) as collections.CollectionId;
    const command: projects.CreateProject = {
      type: 'CreateProject',
      id,
      organizationId,
      rootCollectionId,
      name: body.name,
      description: body.description,
      authority: { organizationRole: standing.role },
    };
    // Two streams, no transaction across them: the project's decision is taken first (pure),
    // then its root collection is stored, then the project. A failure between the two
    // appends leaves at worst an unreferenced root collection, never a project without one.
    projects.projectDecider.decide(command, projects.initialState, commandContext(context));
    const root = await executeStep(deps, context, {
      decider: collections.collectionDecider,
      stream: collections.collectionStream(rootCollectionId),
      newStream: true,
      command: { type: 'CreateRootCollection', id: rootCollectionId, projectId: id, title: body.name },
    });
    return runCommand(
      deps,
      context,
      { decider: projects.projectDecider, stream: projects.projectStream(id), command, after: root.events, newStream: true },
      { status: 201, ...readBackProject(deps.db, id, caller), headers: { Location: `/api/projects/${id}/` } },
    );
  });
