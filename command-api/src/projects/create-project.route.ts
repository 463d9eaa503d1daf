import { collections, projects, type OrganizationId } from '@cairn/domain';
import { createProject } from '@cairn/contract';
import { executeCommand, httpErrors, implement } from '@cairn/platform';
import { organizationStanding } from '@cairn/projections';
import { randomUUID } from 'node:crypto';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { callerOf, presentProjectFor } from './project-access.ts';

export const createProjectRoute = (deps: CommandDeps) =>
  implement(createProject, async ({ body, context }) => {
    const caller = callerOf(context);
    const organizationId = body.organization_id.toLowerCase() as OrganizationId;
    const standing = await organizationStanding(deps.db, organizationId, caller.userId);
    // An organization the caller is not in gets the answer an unknown one gets (DECISIONS.md 1).
    if (!standing || (standing.role === null && !caller.isSystemAdmin)) {
      throw httpErrors.validation({ organization_id: ['Unknown organization, or you are not a member of it.'] });
    }
    const id = randomUUID() as projects.ProjectId;
    const rootCollectionId = randomUUID() as collections.CollectionId;
    const command: projects.CreateProject = {
      type: 'CreateProject',
      id,
      organizationId,
      rootCollectionId,
      name: body.name,
      description: body.description,
      authority: { organizationRole: standing.role },
    };
    const ctx = commandContext(context);
    const metadata = commandMetadata(context);
    // Two streams, no transaction across them: the project's decision is taken first (pure),
    // then its root collection is stored, then the project. A failure between the two
    // appends leaves at worst an unreferenced root collection, never a project without one.
    projects.projectDecider.decide(command, projects.initialState, ctx);
    const root = await executeCommand(
      deps.eventStore,
      collections.collectionDecider,
      collections.collectionStream(rootCollectionId),
      { type: 'CreateRootCollection', id: rootCollectionId, projectId: id, title: body.name },
      ctx,
      metadata,
    );
    const outcome = await executeCommand(deps.eventStore, projects.projectDecider, projects.projectStream(id), command, ctx, metadata);
    await awaitReadModels(deps, outcome.position, [...root.events, ...outcome.events].map((e) => e.type));
    return { status: 201, body: await presentProjectFor(deps, id, caller), position: outcome.position, headers: { Location: `/api/projects/${id}/` } };
  });
