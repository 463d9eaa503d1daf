import { projects } from '@cairn/domain';
import { httpErrors, type Caller, type RequestContext } from '@cairn/platform';
import { accessOfRecord, findVisibleProject, openProject, organizationStanding, presentProject, type ProjectRecord, type ReadDb } from '@cairn/projections';
import type { Request } from 'express';
import type { CommandDeps } from '../deps.ts';

export function callerOf(context: RequestContext): Caller {
  if (!context.caller) throw httpErrors.unauthenticated();
  return context.caller;
}

/**
 * The caller's role in the organization a new project or country set is to belong to. An
 * organization the caller is not in gets the answer an unknown one gets (DECISIONS.md 1).
 */
export async function requireOrganizationStanding(db: ReadDb, organizationId: string, caller: Caller): Promise<{ role: string | null }> {
  const standing = await organizationStanding(db, organizationId, caller.userId);
  if (!standing || (standing.role === null && !caller.isSystemAdmin)) {
    throw httpErrors.unknownReference('organization_id', 'The organization was not found.');
  }
  return standing;
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

/** The project read back after a write, as the caller sees it. */
export function readBackProject(db: ReadDb, projectId: string, caller: Caller) {
  return { read: () => findVisibleProject(db, projectId, caller), present: (record: ProjectRecord) => presentProject(record, caller), notFound: 'Project not found.' };
}
