import { projects } from '@cairn/domain';
import { httpErrors, type Caller, type RequestContext } from '@cairn/platform';
import { accessOfRecord, findVisibleProject, openProject, presentProject, type ProjectRecord } from '@cairn/projections';
import type { Request } from 'express';
import type { CommandDeps } from '../deps.ts';

export function callerOf(context: RequestContext): Caller {
  if (!context.caller) throw httpErrors.unauthenticated();
  return context.caller;
}

/** 404 for a hidden project, then its geographic restriction (see projections' openProject). */
export async function openProjectFor(deps: CommandDeps, projectId: string, context: RequestContext, req: Request): Promise<{ caller: Caller; project: ProjectRecord }> {
  const caller = callerOf(context);
  return { caller, project: await openProject(deps, projectId, caller, req) };
}

/** What the decider needs to know about the caller beyond the project's own stream. */
export function authorityOf(project: ProjectRecord): projects.ProjectAuthority {
  return { organizationRole: project.organization_role };
}

/**
 * The decider checks this again on the stream; checked here too so that a caller who may
 * not manage the project gets 403 before references in the body are looked up.
 */
export function requireManage(project: ProjectRecord, caller: Caller): void {
  if (!accessOfRecord(project, caller).canManage) throw projects.projectErrors.cannotManage();
}

export async function presentProjectFor(deps: CommandDeps, projectId: string, caller: Caller) {
  const record = await findVisibleProject(deps.db, projectId, caller);
  if (!record) throw httpErrors.notFound('Project not found.');
  return presentProject(record, caller);
}
