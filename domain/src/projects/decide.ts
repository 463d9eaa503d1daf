import type { CommandContext } from '../shared/command-context.ts';
import { assertNever, type Decider } from '../shared/decider.ts';
import type { UserId } from '../shared/ids.ts';
import { projectAccess, type ProjectAccess } from './access.ts';
import type { ProjectAuthority, ProjectCommand } from './commands.ts';
import { projectErrors } from './errors.ts';
import { defaultGeobound, geoboundBases, projectRoles, type ProjectDetails, type ProjectEvent, type ProjectId, type ProjectRole } from './events.ts';
import { evolve, initialState, type ProjectState } from './state.ts';

type ActiveProject = Extract<ProjectState, { status: 'active' }>;

const countryPattern = /^[A-Z]{2}$/;

export function decide(command: ProjectCommand, state: ProjectState, context: CommandContext): readonly ProjectEvent[] {
  if (command.type === 'CreateProject') {
    if (state.status !== 'absent') throw projectErrors.alreadyExists();
    const ownerId = context.actor.userId as UserId | null;
    if (ownerId === null) throw projectErrors.ownerRequired();
    if (!context.actor.isSystemAdmin && command.authority.organizationRole === null) throw projectErrors.notOrganizationMember();
    const details = validDetails({ ...defaultGeobound, name: command.name, description: command.description });
    return [
      {
        type: 'ProjectCreated',
        data: { id: command.id, organizationId: command.organizationId, ownerId, rootCollectionId: command.rootCollectionId, ...details },
      },
      // The creator is the project's first admin (interface 2.2 `owner_id`).
      { type: 'ProjectMemberAdded', data: { projectId: command.id, userId: ownerId, role: 'admin' } },
    ];
  }

  const project = activeProject(state);
  const access = accessOf(project, command.authority, context);
  switch (command.type) {
    case 'ChangeProject': {
      requireManage(access);
      const changes = changedDetails(project.details, validDetails(command.changes));
      // A PATCH that changes nothing records nothing.
      if (Object.keys(changes).length === 0) return [];
      return [{ type: 'ProjectUpdated', data: { id: command.id, changes } }];
    }
    case 'DeleteProject':
      requireManage(access);
      return [{ type: 'ProjectDeleted', data: { id: command.id } }];
    case 'AddProjectMember':
      requireManage(access);
      requireRole(command.role);
      if (project.members.has(command.userId)) throw projectErrors.alreadyMember();
      return [{ type: 'ProjectMemberAdded', data: { projectId: command.id, userId: command.userId, role: command.role } }];
    case 'ChangeProjectMemberRole': {
      requireManage(access);
      requireRole(command.role);
      const current = project.members.get(command.userId);
      if (current === undefined) throw projectErrors.memberNotFound();
      if (current === command.role) return [];
      if (current === 'admin') requireAnotherAdmin(project, command.userId);
      return [{ type: 'ProjectMemberRoleChanged', data: { projectId: command.id, userId: command.userId, role: command.role } }];
    }
    case 'RemoveProjectMember': {
      // Members may leave on their own; anyone else is removed by those who manage the project.
      if (command.userId !== context.actor.userId) requireManage(access);
      const current = project.members.get(command.userId);
      if (current === undefined) throw projectErrors.memberNotFound();
      if (current === 'admin') requireAnotherAdmin(project, command.userId);
      return [{ type: 'ProjectMemberRemoved', data: { projectId: command.id, userId: command.userId } }];
    }
    case 'StarProject':
    case 'UnstarProject': {
      const userId = context.actor.userId as UserId | null;
      if (userId === null) throw projectErrors.notFound();
      const starred = project.stars.has(userId);
      // Stars are idempotent: starring twice or unstarring an unstarred project changes nothing.
      if (command.type === 'StarProject') return starred ? [] : [{ type: 'ProjectStarred', data: { projectId: command.id, userId } }];
      return starred ? [{ type: 'ProjectUnstarred', data: { projectId: command.id, userId } }] : [];
    }
    default:
      return assertNever(command);
  }
}

function activeProject(state: ProjectState): ActiveProject {
  if (state.status !== 'active') throw projectErrors.notFound();
  return state;
}

/** A caller who may not see the project learns nothing about it: not found (DECISIONS.md 1). */
function accessOf(project: ActiveProject, authority: ProjectAuthority, context: CommandContext): ProjectAccess {
  const userId = context.actor.userId;
  const access = projectAccess({
    isSystemAdmin: context.actor.isSystemAdmin,
    memberRole: userId === null ? null : (project.members.get(userId) ?? null),
    organizationRole: authority.organizationRole,
  });
  if (!access.visible) throw projectErrors.notFound();
  return access;
}

function requireManage(access: ProjectAccess): void {
  if (!access.canManage) throw projectErrors.cannotManage();
}

function requireRole(role: string): asserts role is ProjectRole {
  if (!(projectRoles as readonly string[]).includes(role)) throw projectErrors.invalidRole();
}

function requireAnotherAdmin(project: ActiveProject, leaving: string): void {
  const admins = [...project.members].filter(([userId, role]) => role === 'admin' && userId !== leaving);
  if (admins.length === 0) throw projectErrors.lastAdmin();
}

/** The interface's limits (sections 2.2 and 8), checked again here so no path around HTTP breaks them. */
function validDetails<D extends Partial<ProjectDetails>>(details: D): D {
  const result: { -readonly [K in keyof ProjectDetails]?: ProjectDetails[K] } = { ...details };
  if (details.name !== undefined) {
    const name = details.name.trim();
    if (name.length === 0 || name.length > 255) throw projectErrors.invalidName();
    result.name = name;
  }
  if (details.geoboundBasis !== undefined && !(geoboundBases as readonly string[]).includes(details.geoboundBasis)) throw projectErrors.invalidBasis();
  if (details.geoboundAllowedCountries !== undefined) {
    if (!details.geoboundAllowedCountries.every((c) => countryPattern.test(c))) throw projectErrors.invalidCountry();
    // Stored as a set: sorted, each code once.
    result.geoboundAllowedCountries = [...new Set(details.geoboundAllowedCountries)].sort();
  }
  return result as D;
}

function changedDetails(current: ProjectDetails, requested: Partial<ProjectDetails>): Partial<ProjectDetails> {
  const changes: { -readonly [K in keyof ProjectDetails]?: ProjectDetails[K] } = {};
  for (const key of Object.keys(requested) as (keyof ProjectDetails)[]) {
    const value = requested[key];
    if (value === undefined || sameValue(value, current[key])) continue;
    (changes as Record<string, unknown>)[key] = value;
  }
  return changes;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => v === b[i]);
  return a === b;
}

export const projectDecider: Decider<ProjectCommand, ProjectEvent, ProjectState> = {
  initialState,
  evolve,
  decide,
};

export const projectStream = (id: ProjectId | string) => `project-${id}`;
