import { projects } from '@cairn/domain';
import { starProject, unstarProject } from '@cairn/contract';
import { implement, type RequestContext } from '@cairn/platform';
import type { Request } from 'express';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { authorityOf, openProjectFor } from './project-access.ts';

async function setStar(deps: CommandDeps, type: 'StarProject' | 'UnstarProject', id: projects.ProjectId, context: RequestContext, req: Request) {
  const { project } = await openProjectFor(deps, id, context, req);
  return runCommand(deps, context, { decider: projects.projectDecider, stream: projects.projectStream(id), command: { type, id, authority: authorityOf(project) } }, { status: 204 });
}

export const starProjectRoute = (deps: CommandDeps) =>
  implement(starProject, async ({ params, context, req }) => setStar(deps, 'StarProject', params['id'] as projects.ProjectId, context, req));

export const unstarProjectRoute = (deps: CommandDeps) =>
  implement(unstarProject, async ({ params, context, req }) => setStar(deps, 'UnstarProject', params['id'] as projects.ProjectId, context, req));
