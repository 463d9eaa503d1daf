import type { OrganizationId, UserId } from '../shared/ids.ts';
import type { OrganizationRole } from '../organizations/events.ts';
import type { GroupId, OrganizationMembershipId } from './events.ts';

/**
 * Facts about the caller and the target that the route reads from the read models, so
 * that `decide` stays pure. `callerRole` is the caller's role in the group's organization
 * (null: not a member). `managed` is true when the id names an organization's members
 * group, which no command may change.
 */
export type GroupAccess = {
  readonly callerRole: OrganizationRole | null;
  readonly managed: boolean;
};

export type CreateGroup = {
  readonly type: 'CreateGroup';
  readonly id: GroupId;
  readonly organizationId: OrganizationId;
  readonly name: string;
  readonly description: string;
  readonly organization: { readonly exists: boolean; readonly callerRole: OrganizationRole | null };
};

/** PATCH: renames, describes, or both at once. */
export type ChangeGroup = {
  readonly type: 'ChangeGroup';
  readonly id: GroupId;
  readonly name?: string;
  readonly description?: string;
  readonly access: GroupAccess;
};

export type DeleteGroup = {
  readonly type: 'DeleteGroup';
  readonly id: GroupId;
  readonly access: GroupAccess;
};

/** `membershipId`: the user's current membership of the group's organization, or null. */
export type AddGroupMember = {
  readonly type: 'AddGroupMember';
  readonly id: GroupId;
  readonly userId: UserId;
  readonly membershipId: OrganizationMembershipId | null;
  readonly access: GroupAccess;
};

export type RemoveGroupMember = {
  readonly type: 'RemoveGroupMember';
  readonly id: GroupId;
  readonly userId: UserId;
  readonly membershipId: OrganizationMembershipId | null;
  readonly access: GroupAccess;
};

export type GroupCommand = CreateGroup | ChangeGroup | DeleteGroup | AddGroupMember | RemoveGroupMember;
