import { collections, DomainError, projects } from '@cairn/domain';
import { deleteProject } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { commandContext, type CommandDeps } from '../deps.ts';
import { executeStep, runCommand } from '../run-command.ts';
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

    const stream = await deps.eventStore.readStream(projects.projectStream(id));
    const state = stream.events.reduce(
      (s, e) => projects.projectDecider.evolve(s, { type: e.type, data: e.data } as projects.ProjectEvent),
      projects.projectDecider.initialState,
    );
    projects.projectDecider.decide(command, state, commandContext(context));

    const rootId = project.root_collection_id as collections.CollectionId;
    const root = await executeStep(deps, context, {
      decider: collections.collectionDecider,
      stream: collections.collectionStream(rootId),
      command: { type: 'DeleteRootCollection', id: rootId, projectId: id },
    }).catch((error: unknown) => {
      // Already gone (an earlier attempt, or never stored, see create-project.route.ts): done.
      if (error instanceof DomainError && error.kind === 'not_found') return null;
      throw error;
    });
    return runCommand(deps, context, { decider: projects.projectDecider, stream: projects.projectStream(id), command, after: root?.events ?? [] }, { status: 204 });
  });
