import { describe, expect, it } from 'vitest';
import type { CommandContext } from '../shared/command-context.ts';
import { givenFor } from '../shared/decider-spec.ts';
import type { OrganizationId, UserId } from '../shared/ids.ts';
import type { GroupAccess, GroupCommand } from './commands.ts';
import { groupDecider, groupDescriptionMaxLength } from './decide.ts';
import type { GroupEvent, GroupId } from './events.ts';

const id = '6a0c1e7e-2222-4000-8000-000000000001' as GroupId;
const organizationId = '6a0c1e7e-3333-4000-8000-000000000001' as OrganizationId;
const userId = '6a0c1e7e-4444-4000-8000-000000000001' as UserId;
const now = '2026-01-01T00:00:00.000Z';
const person: CommandContext = { actor: { userId: 'caller', isSystemAdmin: false }, now };
const systemAdmin: CommandContext = { actor: { userId: 'root', isSystemAdmin: true }, now };

const admin: GroupAccess = { callerRole: 'admin', membersGroup: null };
const member: GroupAccess = { callerRole: 'member', membersGroup: null };
const outsider: GroupAccess = { callerRole: null, membersGroup: null };
const created: GroupEvent = { type: 'GroupCreated', data: { id, organizationId, name: 'Curators', description: '' } };
const added = (membershipId = 'm1'): GroupEvent => ({ type: 'GroupMemberAdded', data: { groupId: id, userId, membershipId } });

const create = (organization: { exists: boolean; callerRole: 'admin' | 'member' | null }, name = 'Curators', description = ''): GroupCommand => ({
  type: 'CreateGroup',
  id,
  organizationId,
  name,
  description,
  organization,
});

const given = givenFor(groupDecider, person);

describe('group decider: creation', () => {
  it('lets an organization admin create a custom group, trimmed', () => {
    expect(given([]).when(create({ exists: true, callerRole: 'admin' }, '  Curators ', ' Who curate '))).toEqual({
      events: [{ type: 'GroupCreated', data: { id, organizationId, name: 'Curators', description: 'Who curate' } }],
      code: null,
    });
  });

  it('lets a system administrator create in any existing organization', () => {
    expect(given([]).when(create({ exists: true, callerRole: null }), systemAdmin).events).toEqual([created]);
    expect(given([]).when(create({ exists: false, callerRole: null }), systemAdmin).code).toBe('unknown_organization');
  });

  it('answers an organization the caller is not in like one that does not exist', () => {
    expect(given([]).when(create({ exists: true, callerRole: null })).code).toBe('unknown_organization');
    expect(given([]).when(create({ exists: false, callerRole: null })).code).toBe('unknown_organization');
  });

  it('refuses plain members', () => {
    expect(given([]).when(create({ exists: true, callerRole: 'member' })).code).toBe('permission_denied');
  });

  it('refuses blank or long names, long descriptions and a second creation', () => {
    const ok = { exists: true, callerRole: 'admin' } as const;
    expect(given([]).when(create(ok, '   ')).code).toBe('invalid_name');
    expect(given([]).when(create(ok, 'x'.repeat(256))).code).toBe('invalid_name');
    expect(given([]).when(create(ok, 'x'.repeat(255))).code).toBeNull();
    expect(given([]).when(create(ok, 'n', 'd'.repeat(groupDescriptionMaxLength + 1))).code).toBe('invalid_description');
    expect(given([created]).when(create(ok)).code).toBe('already_exists');
  });
});

describe('group decider: changes', () => {
  it('records a rename and a new description as two events, and only what changes', () => {
    expect(given([created]).when({ type: 'ChangeGroup', id, name: 'Editors', description: 'They edit', access: admin }).events).toEqual([
      { type: 'GroupRenamed', data: { id, name: 'Editors' } },
      { type: 'GroupDescribed', data: { id, description: 'They edit' } },
    ]);
    expect(given([created]).when({ type: 'ChangeGroup', id, name: ' Curators ', access: admin }).events).toEqual([]);
    expect(given([created]).when({ type: 'ChangeGroup', id, description: 'x', access: member }).code).toBe('permission_denied');
    expect(given([created]).when({ type: 'ChangeGroup', id, name: '', access: admin }).code).toBe('invalid_name');
  });

  it('deletes, after which the group is gone for every command', () => {
    const deleted: GroupEvent = { type: 'GroupDeleted', data: { id } };
    expect(given([created]).when({ type: 'DeleteGroup', id, access: admin }).events).toEqual([deleted]);
    expect(given([created, deleted]).when({ type: 'DeleteGroup', id, access: admin }).code).toBe('not_found');
    expect(given([created, deleted]).when({ type: 'ChangeGroup', id, name: 'x', access: admin }, systemAdmin).code).toBe('not_found');
  });

  it('hides groups from outsiders, refuses members, lets system administrators through', () => {
    expect(given([created]).when({ type: 'DeleteGroup', id, access: outsider }).code).toBe('not_found');
    expect(given([]).when({ type: 'DeleteGroup', id, access: admin }).code).toBe('not_found');
    expect(given([created]).when({ type: 'DeleteGroup', id, access: member }).code).toBe('permission_denied');
    expect(given([created]).when({ type: 'DeleteGroup', id, access: outsider }, systemAdmin).code).toBeNull();
  });

  it('refuses deleting a members group and changing its members, after the visibility and role checks', () => {
    const managed = (callerRole: 'admin' | 'member' | null): GroupAccess => ({ callerRole, membersGroup: { name: 'Acme members', description: 'Every member.' } });
    const commands: GroupCommand[] = [
      { type: 'DeleteGroup', id, access: managed('admin') },
      { type: 'AddGroupMember', id, userId, membershipId: 'm1', access: managed('admin') },
      { type: 'RemoveGroupMember', id, userId, membershipId: 'm1', access: managed('admin') },
    ];
    for (const command of commands) {
      expect(given([]).when(command).code).toBe('members_group_managed');
      expect(given([]).when(command, systemAdmin).code).toBe('members_group_managed');
    }
    expect(given([]).when({ type: 'DeleteGroup', id, access: managed(null) }).code).toBe('not_found');
    expect(given([]).when({ type: 'DeleteGroup', id, access: managed('member') }).code).toBe('permission_denied');
  });

  it('renames and describes a members group for its admins and system administrators (DECISIONS §8)', () => {
    const managed = (callerRole: 'admin' | 'member' | null): GroupAccess => ({ callerRole, membersGroup: { name: 'Acme members', description: 'Every member.' } });
    expect(given([]).when({ type: 'ChangeGroup', id, name: ' Everyone ', description: 'All of us', access: managed('admin') }).events).toEqual([
      { type: 'GroupRenamed', data: { id, name: 'Everyone' } },
      { type: 'GroupDescribed', data: { id, description: 'All of us' } },
    ]);
    expect(given([]).when({ type: 'ChangeGroup', id, name: 'Everyone', access: managed(null) }, systemAdmin).events).toHaveLength(1);
    // What it shows already: nothing to record.
    expect(given([]).when({ type: 'ChangeGroup', id, name: 'Acme members', access: managed('admin') }).events).toEqual([]);
    expect(given([]).when({ type: 'ChangeGroup', id, name: 'x', access: managed('member') }).code).toBe('permission_denied');
    expect(given([]).when({ type: 'ChangeGroup', id, name: 'x', access: managed(null) }).code).toBe('not_found');
    expect(given([]).when({ type: 'ChangeGroup', id, name: '  ', access: managed('admin') }).code).toBe('invalid_name');
  });
});

describe('group decider: members', () => {
  it('adds an organization member once', () => {
    expect(given([created]).when({ type: 'AddGroupMember', id, userId, membershipId: 'm1', access: admin }).events).toEqual([added('m1')]);
    expect(given([created, added('m1')]).when({ type: 'AddGroupMember', id, userId, membershipId: 'm1', access: admin }).code).toBe('already_member');
  });

  it('refuses users outside the organization', () => {
    expect(given([created]).when({ type: 'AddGroupMember', id, userId, membershipId: null, access: admin }).code).toBe('not_organization_member');
  });

  it('treats a membership from an earlier organization membership as ended', () => {
    const again = { type: 'AddGroupMember', id, userId, membershipId: 'm2', access: admin } as const;
    expect(given([created, added('m1')]).when(again).events).toEqual([added('m2')]);
    expect(given([created, added('m1')]).when({ type: 'RemoveGroupMember', id, userId, membershipId: 'm2', access: admin }).code).toBe('not_found');
    expect(given([created, added('m1')]).when({ type: 'RemoveGroupMember', id, userId, membershipId: null, access: admin }).code).toBe('not_found');
  });

  it('removes a member, once', () => {
    const removed: GroupEvent = { type: 'GroupMemberRemoved', data: { groupId: id, userId } };
    const remove = { type: 'RemoveGroupMember', id, userId, membershipId: 'm1', access: admin } as const;
    expect(given([created, added('m1')]).when(remove).events).toEqual([removed]);
    expect(given([created, added('m1'), removed]).when(remove).code).toBe('not_found');
    expect(given([created, added('m1')]).when({ ...remove, access: member }).code).toBe('permission_denied');
  });
});
