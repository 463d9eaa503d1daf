import type { OrganizationId, UserId } from '../shared/ids.ts';
import type { ProjectDetails, ProjectId, ProjectRole } from './events.ts';

/**
 * What the caller is in the project's organization, read by the route from the identity
 * read model: the decider cannot see other aggregates, so this fact travels with the command.
 */
export type ProjectAuthority = {
  readonly organizationRole: string | null;
};

export type CreateProject = {
  readonly type: 'CreateProject';
  readonly id: ProjectId;
  readonly organizationId: OrganizationId;
  readonly rootCollectionId: string;
  readonly name: string;
  readonly description: string;
  readonly authority: ProjectAuthority;
};

export type ChangeProject = {
  readonly type: 'ChangeProject';
  readonly id: ProjectId;
  readonly changes: Partial<ProjectDetails>;
  readonly authority: ProjectAuthority;
};

export type DeleteProject = {
  readonly type: 'DeleteProject';
  readonly id: ProjectId;
  readonly authority: ProjectAuthority;
};

export type AddProjectMember = {
  readonly type: 'AddProjectMember';
  readonly id: ProjectId;
  readonly userId: UserId;
  readonly role: ProjectRole;
  readonly authority: ProjectAuthority;
};

export type ChangeProjectMemberRole = {
  readonly type: 'ChangeProjectMemberRole';
  readonly id: ProjectId;
  readonly userId: UserId;
  readonly role: ProjectRole;
  readonly authority: ProjectAuthority;
};

export type RemoveProjectMember = {
  readonly type: 'RemoveProjectMember';
  readonly id: ProjectId;
  readonly userId: UserId;
  readonly authority: ProjectAuthority;
};

export type StarProject = {
  readonly type: 'StarProject';
  readonly id: ProjectId;
  readonly authority: ProjectAuthority;
};

export type UnstarProject = {
  readonly type: 'UnstarProject';
  readonly id: ProjectId;
  readonly authority: ProjectAuthority;
};

export type ProjectCommand =
  | CreateProject
  | ChangeProject
  | DeleteProject
  | AddProjectMember
  | ChangeProjectMemberRole
  | RemoveProjectMember
  | StarProject
  | UnstarProject;
