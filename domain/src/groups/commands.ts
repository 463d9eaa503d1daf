import type { OrganizationId, UserId } from '../shared/ids.ts';
import type { OrganizationRole } from '../organizations/events.ts';
import type { GroupId, OrganizationMembershipId } from './events.ts';

/**
 * Facts about the caller and the target that the route reads from the read models, so
 * that `decide` stays pure. `callerRole` is the caller's role in the group's organization
 * (null: not a member). `membersGroup` is set when the id names an organization's members
 * group, with the name and description it shows: it has no GroupCreated of its own (a
 * projection keeps it), so a rename is decided on what the group shows. Its membership
 * follows the organization and no command may change it (DECISIONS §8).
 */
export type GroupAccess = {
  readonly callerRole: OrganizationRole | null;
  readonly membersGroup: { readonly name: string; readonly description: string } | null;
};

export type CreateGroup = {
  readonly type: 'CreateGroup';
  readonly id: GroupId;
  readonly organizationId: OrganizationId;
  readonly name: string;
  readonly description: string;
  readonly organization: { readonly exists: boolean; readonly callerRole: OrganizationRole | null };
};

/** Every command on an existing group names it and carries what the route read about it. */
type GroupCommandOf<T extends string, Fields = unknown> = { readonly type: T; readonly id: GroupId; readonly access: GroupAccess } & Fields;

/** PATCH: renames, describes, or both at once. */
export type ChangeGroup = GroupCommandOf<'ChangeGroup', { readonly name?: string; readonly description?: string }>;

export type DeleteGroup = GroupCommandOf<'DeleteGroup'>;

/** `membershipId`: the user's current membership of the group's organization, or null. */
export type AddGroupMember = GroupCommandOf<'AddGroupMember', { readonly userId: UserId; readonly membershipId: OrganizationMembershipId | null }>;

export type RemoveGroupMember = GroupCommandOf<'RemoveGroupMember', { readonly userId: UserId; readonly membershipId: OrganizationMembershipId | null }>;

export type GroupCommand = CreateGroup | ChangeGroup | DeleteGroup | AddGroupMember | RemoveGroupMember;
