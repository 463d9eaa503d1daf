import type { Brand, OrganizationId, UserId } from '../shared/ids.ts';

export type GroupId = Brand<string, 'GroupId'>;

/**
 * Names a membership of a user in an organization: the id of the event that made the user
 * a member. A user who leaves and joins again holds a new one, so group memberships taken
 * under the old one are over (docs/groups.md).
 */
export type OrganizationMembershipId = string;

/** Only custom groups have a stream; an organization's members group is kept by a projection. */
export type GroupCreated = {
  readonly type: 'GroupCreated';
  readonly data: { readonly id: GroupId; readonly organizationId: OrganizationId; readonly name: string; readonly description: string };
};

export type GroupRenamed = {
  readonly type: 'GroupRenamed';
  readonly data: { readonly id: GroupId; readonly name: string };
};

export type GroupDescribed = {
  readonly type: 'GroupDescribed';
  readonly data: { readonly id: GroupId; readonly description: string };
};

export type GroupDeleted = {
  readonly type: 'GroupDeleted';
  readonly data: { readonly id: GroupId };
};

export type GroupMemberAdded = {
  readonly type: 'GroupMemberAdded';
  readonly data: { readonly groupId: GroupId; readonly userId: UserId; readonly membershipId: OrganizationMembershipId };
};

export type GroupMemberRemoved = {
  readonly type: 'GroupMemberRemoved';
  readonly data: { readonly groupId: GroupId; readonly userId: UserId };
};

export type GroupEvent = GroupCreated | GroupRenamed | GroupDescribed | GroupDeleted | GroupMemberAdded | GroupMemberRemoved;

export const groupEventTypes = ['GroupCreated', 'GroupRenamed', 'GroupDescribed', 'GroupDeleted', 'GroupMemberAdded', 'GroupMemberRemoved'] as const;
