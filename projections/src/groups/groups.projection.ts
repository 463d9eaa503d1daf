import type { groups } from '@cairn/domain';
import { sql } from 'kysely';
import type { Projection } from '../runner/projection.ts';
import type { ReadTrx } from '../schema.ts';
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
 */
export const groupsProjection: Projection = {
  name: 'groups',
  version: 1,
  handles: [...organizationEventTypesForGroups, 'GroupCreated', 'GroupRenamed', 'GroupDescribed', 'GroupDeleted', 'GroupMemberAdded', 'GroupMemberRemoved'],
  tables: ['groups', 'group_members'],
  async apply(trx, recorded) {
    const event = { type: recorded.type, data: recorded.data } as Event;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'OrganizationCreated': {
        const { id, name } = event.data;
        await trx
          .insertInto('groups')
          .values({
            id: membersGroupId(id),
            organization_id: id,
            name: membersGroupName(name),
            description: membersGroupDescription,
            type: 'members',
            member_count: 0,
            created_at: at,
            updated_at: at,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'OrganizationRenamed':
        await trx
          .updateTable('groups')
          .set({ name: membersGroupName(event.data.name), updated_at: at })
          .where('id', '=', membersGroupId(event.data.id))
          .execute();
        return;
      case 'OrganizationMemberAdded': {
        const { organizationId, userId } = event.data;
        // The event's id names this membership; a second Added for a current member keeps the first.
        await addMember(trx, membersGroupId(organizationId), organizationId, userId, recorded.id, at);
        return;
      }
      case 'OrganizationMemberRemoved': {
        const { organizationId, userId } = event.data;
        const left = await trx
          .deleteFrom('group_members')
          .where('organization_id', '=', organizationId)
          .where('user_id', '=', userId)
          .returning('group_id')
          .execute();
        await countDown(trx, left.map((row) => row.group_id), at);
        return;
      }
      case 'OrganizationMemberRoleChanged':
        // A role is not part of any group: the members group holds admins and members alike.
        return;
      case 'GroupCreated': {
        const { id, organizationId, name, description } = event.data;
        await trx
          .insertInto('groups')
          .values({ id, organization_id: organizationId, name, description, type: 'custom', member_count: 0, created_at: at, updated_at: at })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'GroupRenamed':
        await trx.updateTable('groups').set({ name: event.data.name, updated_at: at }).where('id', '=', event.data.id).where('type', '=', 'custom').execute();
        return;
      case 'GroupDescribed':
        await trx
          .updateTable('groups')
          .set({ description: event.data.description, updated_at: at })
          .where('id', '=', event.data.id)
          .where('type', '=', 'custom')
          .execute();
        return;
      case 'GroupDeleted':
        await trx.deleteFrom('group_members').where('group_id', '=', event.data.id).execute();
        await trx.deleteFrom('groups').where('id', '=', event.data.id).where('type', '=', 'custom').execute();
        return;
      case 'GroupMemberAdded': {
        const { groupId, userId, membershipId } = event.data;
        const group = await trx.selectFrom('groups').select('organization_id').where('id', '=', groupId).where('type', '=', 'custom').executeTakeFirst();
        if (!group) return;
        // The decision was taken on a membership that may have ended (the user left the
        // organization) before this event was stored: then the addition is over already.
        const current = await trx
          .selectFrom('group_members')
          .select('membership_id')
          .where('group_id', '=', membersGroupId(group.organization_id))
          .where('user_id', '=', userId)
          .executeTakeFirst();
        if (current?.membership_id !== membershipId) return;
        await addMember(trx, groupId, group.organization_id, userId, membershipId, at);
        return;
      }
      case 'GroupMemberRemoved': {
        const { groupId, userId } = event.data;
        const removed = await trx.deleteFrom('group_members').where('group_id', '=', groupId).where('user_id', '=', userId).returning('group_id').execute();
        await countDown(trx, removed.map((row) => row.group_id), at);
        return;
      }
    }
  },
};

async function addMember(trx: ReadTrx, groupId: string, organizationId: string, userId: string, membershipId: string, at: string): Promise<void> {
  const inserted = await trx
    .insertInto('group_members')
    .values({ group_id: groupId, user_id: userId, organization_id: organizationId, membership_id: membershipId, added_at: at })
    .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
    .returning('group_id')
    .execute();
  if (inserted.length === 0) return;
  await trx
    .updateTable('groups')
    .set({ member_count: sql<number>`member_count + 1`, updated_at: at })
    .where('id', '=', groupId)
    .execute();
}

async function countDown(trx: ReadTrx, groupIds: readonly string[], at: string): Promise<void> {
  if (groupIds.length === 0) return;
  await trx
    .updateTable('groups')
    .set({ member_count: sql<number>`member_count - 1`, updated_at: at })
    .where('id', 'in', groupIds)
    .execute();
}
