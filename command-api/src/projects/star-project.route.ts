import { projects } from '@cairn/domain';
import { starProject, unstarProject } from '@cairn/contract';
import { executeCommand, implement, type RequestContext } from '@cairn/platform';
import type { Request } from 'express';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { authorityOf, openProjectFor } from './project-access.ts';

async function setStar(deps: CommandDeps, type: 'StarProject' | 'UnstarProject', id: projects.ProjectId, context: RequestContext, req: Request) {
  const { project } = await openProjectFor(deps, id, context, req);
  const outcome = await executeCommand(deps.eventStore, projects.projectDecider, projects.projectStream(id), { type, id, authority: authorityOf(project) }, commandContext(context), commandMetadata(context));
  await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
  return { status: 204, position: outcome.position };
}

export const starProjectRoute = (deps: CommandDeps) =>
  implement(starProject, async ({ params, context, req }) => setStar(deps, 'StarProject', params['id'] as projects.ProjectId, context, req));

export const unstarProjectRoute = (deps: CommandDeps) =>
  implement(unstarProject, async ({ params, context, req }) => setStar(deps, 'UnstarProject', params['id'] as projects.ProjectId, context, req));
