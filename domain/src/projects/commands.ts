import type { OrganizationId, UserId } from '../shared/ids.ts';
import type { ProjectDetails, ProjectId, ProjectRole } from './events.ts';

/**
 * What the caller is in the project's organization, read by the route from the identity
 * read model: the decider cannot see other aggregates, so this fact travels with the command.
 */
export type ProjectAuthority = {
  readonly organizationRole: string | null;
};

/** Every project command names its project and carries the caller's authority. */
type ProjectCommandOf<T extends string, Fields = unknown> = { readonly type: T; readonly id: ProjectId; readonly authority: ProjectAuthority } & Fields;

export type CreateProject = ProjectCommandOf<'CreateProject', { readonly organizationId: OrganizationId; readonly rootCollectionId: string; readonly name: string; readonly description: string }>;
export type ChangeProject = ProjectCommandOf<'ChangeProject', { readonly changes: Partial<ProjectDetails> }>;
export type DeleteProject = ProjectCommandOf<'DeleteProject'>;
export type AddProjectMember = ProjectCommandOf<'AddProjectMember', { readonly userId: UserId; readonly role: ProjectRole }>;
export type ChangeProjectMemberRole = ProjectCommandOf<'ChangeProjectMemberRole', { readonly userId: UserId; readonly role: ProjectRole }>;
export type RemoveProjectMember = ProjectCommandOf<'RemoveProjectMember', { readonly userId: UserId }>;
export type StarProject = ProjectCommandOf<'StarProject'>;
export type UnstarProject = ProjectCommandOf<'UnstarProject'>;

export type ProjectCommand =
  | CreateProject
  | ChangeProject
  | DeleteProject
  | AddProjectMember
  | ChangeProjectMemberRole
  | RemoveProjectMember
  | StarProject
  | UnstarProject;
