import { collections, DomainError, projects } from '@cairn/domain';
import { deleteProject } from '@cairn/contract';
import { executeCommand, implement } from '@cairn/platform';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { authorityOf, openProjectFor } from './project-access.ts';

/**
 * Two streams, no transaction across them, so the order makes the request safe to retry:
 * the project's decision is taken first on its own stream (pure, so that no one who may
 * not delete the project deletes its root), then the root collection is deleted, then the
 * project. A failure between the two appends leaves the project with its root already
 * gone; DELETE again finishes the job, since a root already deleted counts as done.
 */
export const deleteProjectRoute = (deps: CommandDeps) =>
  implement(deleteProject, async ({ params, context, req }) => {
    const id = params['id'] as projects.ProjectId;
    const { project } = await openProjectFor(deps, id, context, req);
    const command: projects.DeleteProject = { type: 'DeleteProject', id, authority: authorityOf(project) };
    const ctx = commandContext(context);
    const metadata = commandMetadata(context);

    const stream = await deps.eventStore.readStream(projects.projectStream(id));
    const state = stream.events.reduce(
      (s, e) => projects.projectDecider.evolve(s, { type: e.type, data: e.data } as projects.ProjectEvent),
      projects.projectDecider.initialState,
    );
    projects.projectDecider.decide(command, state, ctx);

    const rootId = project.root_collection_id as collections.CollectionId;
    const root = await executeCommand(
      deps.eventStore,
      collections.collectionDecider,
      collections.collectionStream(rootId),
      { type: 'DeleteRootCollection', id: rootId, projectId: id },
      ctx,
      metadata,
    ).catch((error: unknown) => {
      // Already gone (an earlier attempt, or never stored, see create-project.route.ts): done.
      if (error instanceof DomainError && error.kind === 'not_found') return null;
      throw error;
    });
    const outcome = await executeCommand(deps.eventStore, projects.projectDecider, projects.projectStream(id), command, ctx, metadata);
    await awaitReadModels(deps, outcome.position, [...(root?.events ?? []), ...outcome.events].map((e) => e.type));
    return { status: 204, position: outcome.position };
  });
