import type { DomainEvent } from '../shared/events.ts';
import type { Brand, OrganizationId, UserId } from '../shared/ids.ts';

export type GroupId = Brand<string, 'GroupId'>;

/**
 * Names a membership of a user in an organization: the id of the event that made the user
 * a member. A user who leaves and joins again holds a new one, so group memberships taken
 * under the old one are over (docs/groups.md).
 */
export type OrganizationMembershipId = string;

/**
 * Custom groups have a whole stream. An organization's members group is kept by a
 * projection; its stream holds only the renames and descriptions given by hand.
 */
export type GroupCreated = DomainEvent<'GroupCreated', { readonly id: GroupId; readonly organizationId: OrganizationId; readonly name: string; readonly description: string }>;

export type GroupRenamed = DomainEvent<'GroupRenamed', { readonly id: GroupId; readonly name: string }>;

export type GroupDescribed = DomainEvent<'GroupDescribed', { readonly id: GroupId; readonly description: string }>;

export type GroupDeleted = DomainEvent<'GroupDeleted', { readonly id: GroupId }>;

export type GroupMemberAdded = DomainEvent<'GroupMemberAdded', { readonly groupId: GroupId; readonly userId: UserId; readonly membershipId: OrganizationMembershipId }>;

export type GroupMemberRemoved = DomainEvent<'GroupMemberRemoved', { readonly groupId: GroupId; readonly userId: UserId }>;

export type GroupEvent = GroupCreated | GroupRenamed | GroupDescribed | GroupDeleted | GroupMemberAdded | GroupMemberRemoved;

export const groupEventTypes = ['GroupCreated', 'GroupRenamed', 'GroupDescribed', 'GroupDeleted', 'GroupMemberAdded', 'GroupMemberRemoved'] as const;
