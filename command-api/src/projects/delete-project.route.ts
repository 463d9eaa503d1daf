import { collections, DomainError, projects } from '@cairn/domain';
import { deleteProject } from '@cairn/contract';
import { executeCommand, implement } from '@cairn/platform';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { authorityOf, openProjectFor } from './project-access.ts';

export const deleteProjectRoute = (deps: CommandDeps) =>
  implement(deleteProject, async ({ params, context, req }) => {
    const id = params['id'] as projects.ProjectId;
    const { project } = await openProjectFor(deps, id, context, req);
    const ctx = commandContext(context);
    const metadata = commandMetadata(context);
    const outcome = await executeCommand(deps.eventStore, projects.projectDecider, projects.projectStream(id), { type: 'DeleteProject', id, authority: authorityOf(project) }, ctx, metadata);
    // The root collection goes with its project; the project's deletion stands even if this is retried later.
    const rootId = project.root_collection_id as collections.CollectionId;
    const root = await executeCommand(
      deps.eventStore,
      collections.collectionDecider,
      collections.collectionStream(rootId),
      { type: 'DeleteRootCollection', id: rootId, projectId: id },
      ctx,
      metadata,
    ).catch((error: unknown) => {
      // Already gone (or never stored, see create-project.route.ts): nothing left to delete.
      if (error instanceof DomainError && error.kind === 'not_found') return null;
      throw error;
    });
    const position = root?.position ?? outcome.position;
    await awaitReadModels(deps, position, [...outcome.events, ...(root?.events ?? [])].map((e) => e.type));
    return { status: 204, position };
  });
