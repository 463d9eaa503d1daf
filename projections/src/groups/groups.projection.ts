import type { groups } from '@cairn/domain';
import { sql } from 'kysely';
import type { Projection } from '../runner/projection.ts';
import { custom, insert, remove, update, type ReadExecutor } from '../runner/row-ops.ts';
import { membersGroupDescription, membersGroupId, membersGroupName } from './members-group.ts';

/**
 * The organization events this projection follows, by type name and data shape. They are
 * owned by the organization aggregate; written out here so that the projection handles
 * them whether or not that aggregate emits each of them yet.
 */
type OrganizationEvent =
  | { readonly type: 'OrganizationCreated'; readonly data: { readonly id: string; readonly name: string; readonly country: string | null } }
  | { readonly type: 'OrganizationRenamed'; readonly data: { readonly id: string; readonly name: string } }
  | { readonly type: 'OrganizationMemberAdded'; readonly data: { readonly organizationId: string; readonly userId: string; readonly role: string } }
  | { readonly type: 'OrganizationMemberRemoved'; readonly data: { readonly organizationId: string; readonly userId: string } }
  | { readonly type: 'OrganizationMemberRoleChanged'; readonly data: { readonly organizationId: string; readonly userId: string; readonly role: string } };

type Event = OrganizationEvent | groups.GroupEvent;

export const organizationEventTypesForGroups = [
  'OrganizationCreated',
  'OrganizationRenamed',
  'OrganizationMemberAdded',
  'OrganizationMemberRemoved',
  'OrganizationMemberRoleChanged',
] as const;

/**
 * Groups and their members (interface 2.4). Two rules hold at every checkpoint:
 * - an organization's members group has exactly the organization's members;
 * - a custom group shows a user only while the organization membership under which the
 *   user was added lasts: leaving the organization ends every group membership in it.
 * `member_count` moves in the same statement pairs that change `group_members`.
 * A group member's row depends on the organization's stream: `serialized`, so inline
 * appends apply it one at a time, in log order.
 */
export const groupsProjection: Projection = {
  name: 'groups',
  // 2: row operations, applied inline.
  version: 2,
  serialized: true,
  handles: [...organizationEventTypesForGroups, 'GroupCreated', 'GroupRenamed', 'GroupDescribed', 'GroupDeleted', 'GroupMemberAdded', 'GroupMemberRemoved'],
  tables: ['groups', 'group_members'],
  project(recorded) {
    const event = { type: recorded.type, data: recorded.data } as Event;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'OrganizationCreated': {
        const { id, name } = event.data;
        const group = { id: membersGroupId(id), organization_id: id, name: membersGroupName(name), description: membersGroupDescription, type: 'members' as const };
        return [insert('groups', { ...group, member_count: 0, created_at: at, updated_at: at }, { key: ['id'] })];
      }
      case 'OrganizationRenamed':
        // A name given by hand (GroupRenamed) stays: the organization's rename no longer overrides it.
        return [update('groups', { id: membersGroupId(event.data.id), name_given: false }, { name: membersGroupName(event.data.name), updated_at: at })];
      case 'OrganizationMemberAdded': {
        const { organizationId, userId } = event.data;
        // The event's id names this membership; a second Added for a current member keeps the first.
        return [custom((db) => addMember(db, membersGroupId(organizationId), organizationId, userId, recorded.id, at))];
      }
      case 'OrganizationMemberRemoved': {
        const { organizationId, userId } = event.data;
        return [
          custom(async (db) => {
            const left = await db.deleteFrom('group_members').where('organization_id', '=', organizationId).where('user_id', '=', userId).returning('group_id').execute();
            await countDown(db, left.map((row) => row.group_id), at);
          }),
        ];
      }
      case 'OrganizationMemberRoleChanged':
        // A role is not part of any group: the members group holds admins and members alike.
        return [];
      case 'GroupCreated': {
        const { id, organizationId, name, description } = event.data;
        return [insert('groups', { id, organization_id: organizationId, name, description, type: 'custom', member_count: 0, created_at: at, updated_at: at }, { key: ['id'] })];
      }
      // Of a custom group, or of a members group (DECISIONS §8: it may be renamed; its membership stays the organization's).
      case 'GroupRenamed':
        return [update('groups', { id: event.data.id }, { name: event.data.name, name_given: true, updated_at: at })];
      case 'GroupDescribed':
        return [update('groups', { id: event.data.id }, { description: event.data.description, updated_at: at })];
      case 'GroupDeleted':
        return [remove('group_members', { group_id: event.data.id }), remove('groups', { id: event.data.id, type: 'custom' })];
      case 'GroupMemberAdded': {
        const { groupId, userId, membershipId } = event.data;
        return [
          custom(async (db) => {
            const group = await db.selectFrom('groups').select('organization_id').where('id', '=', groupId).where('type', '=', 'custom').executeTakeFirst();
            if (!group) return;
            // The decision was taken on a membership that may have ended (the user left the
            // organization) before this event was stored: then the addition is over already.
            const current = await db
              .selectFrom('group_members')
              .select('membership_id')
              .where('group_id', '=', membersGroupId(group.organization_id))
              .where('user_id', '=', userId)
              .executeTakeFirst();
            if (current?.membership_id !== membershipId) return;
            await addMember(db, groupId, group.organization_id, userId, membershipId, at);
          }),
        ];
      }
      case 'GroupMemberRemoved': {
        const { groupId, userId } = event.data;
        return [
          custom(async (db) => {
            const removed = await db.deleteFrom('group_members').where('group_id', '=', groupId).where('user_id', '=', userId).returning('group_id').execute();
            await countDown(db, removed.map((row) => row.group_id), at);
          }),
        ];
      }
    }
  },
};

async function addMember(db: ReadExecutor, groupId: string, organizationId: string, userId: string, membershipId: string, at: string): Promise<void> {
  const inserted = await db
    .insertInto('group_members')
    .values({ group_id: groupId, user_id: userId, organization_id: organizationId, membership_id: membershipId, added_at: at })
    .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
    .returning('group_id')
    .execute();
  if (inserted.length === 0) return;
  await db
    .updateTable('groups')
    .set({ member_count: sql<number>`member_count + 1`, updated_at: at })
    .where('id', '=', groupId)
    .execute();
}

async function countDown(db: ReadExecutor, groupIds: readonly string[], at: string): Promise<void> {
  if (groupIds.length === 0) return;
  await db
    .updateTable('groups')
    .set({ member_count: sql<number>`member_count - 1`, updated_at: at })
    .where('id', 'in', groupIds)
    .execute();
}
