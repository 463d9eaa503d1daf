import { describe, expect, it } from 'vitest';
import type { CommandContext } from '../shared/command-context.ts';
import { givenFor } from '../shared/decider-spec.ts';
import type { OrganizationId, UserId } from '../shared/ids.ts';
import { organizationDecider } from './decide.ts';
import type { OrganizationEvent } from './events.ts';

const now = '2026-01-01T00:00:00.000Z';
const id = 'org-1' as OrganizationId;
const ada = 'ada' as UserId;
const bob = 'bob' as UserId;
const sysadmin: CommandContext = { actor: { userId: 'root', isSystemAdmin: true }, now };
const user = (userId: string): CommandContext => ({ actor: { userId, isSystemAdmin: false }, now });
const created: OrganizationEvent = { type: 'OrganizationCreated', data: { id, name: 'Uni', country: 'DE' } };
const adaJoined: OrganizationEvent = { type: 'OrganizationMemberAdded', data: { organizationId: id, userId: ada, role: 'admin' } };

const given = givenFor(organizationDecider, sysadmin);

describe('organization decider', () => {
  it('creates with a trimmed name and validates name and country', () => {
    expect(given([]).when({ type: 'CreateOrganization', id, name: ' Uni ', country: null }).events).toEqual([
      { type: 'OrganizationCreated', data: { id, name: 'Uni', country: null } },
    ]);
    expect(given([]).when({ type: 'CreateOrganization', id, name: ' ', country: null }).code).toBe('invalid_name');
    expect(given([]).when({ type: 'CreateOrganization', id, name: 'Uni', country: 'de' }).code).toBe('invalid_country');
    expect(given([created]).when({ type: 'CreateOrganization', id, name: 'Uni', country: null }).code).toBe('already_exists');
  });

  it('renames and changes the country with one event each, and only what changes', () => {
    expect(given([created]).when({ type: 'ChangeOrganization', id, name: 'University', country: 'FR' }).events).toEqual([
      { type: 'OrganizationRenamed', data: { id, name: 'University' } },
      { type: 'OrganizationCountryChanged', data: { id, country: 'FR' } },
    ]);
    expect(given([created]).when({ type: 'ChangeOrganization', id, name: 'Uni ', country: 'DE' }).events).toEqual([]);
    expect(given([created]).when({ type: 'ChangeOrganization', id, country: null }).events).toEqual([{ type: 'OrganizationCountryChanged', data: { id, country: null } }]);
    expect(given([]).when({ type: 'ChangeOrganization', id, name: 'x' }).code).toBe('not_found');
  });

  it('adds, re-roles and removes members', () => {
    expect(given([created]).when({ type: 'AddOrganizationMember', organizationId: id, userId: ada, role: 'admin' }).events).toEqual([adaJoined]);
    expect(given([created, adaJoined]).when({ type: 'AddOrganizationMember', organizationId: id, userId: ada, role: 'member' }).code).toBe('already_member');
    expect(given([created, adaJoined]).when({ type: 'ChangeOrganizationMemberRole', organizationId: id, userId: ada, role: 'member' }).events).toEqual([
      { type: 'OrganizationMemberRoleChanged', data: { organizationId: id, userId: ada, role: 'member' } },
    ]);
    expect(given([created, adaJoined]).when({ type: 'ChangeOrganizationMemberRole', organizationId: id, userId: ada, role: 'admin' }).events).toEqual([]);
    expect(given([created, adaJoined]).when({ type: 'ChangeOrganizationMemberRole', organizationId: id, userId: ada }).events).toEqual([]);
    expect(given([created]).when({ type: 'ChangeOrganizationMemberRole', organizationId: id, userId: ada }).code).toBe('not_found');
    const removed: OrganizationEvent = { type: 'OrganizationMemberRemoved', data: { organizationId: id, userId: ada } };
    expect(given([created, adaJoined]).when({ type: 'RemoveOrganizationMember', organizationId: id, userId: ada }).events).toEqual([removed]);
    expect(given([created, adaJoined, removed]).when({ type: 'RemoveOrganizationMember', organizationId: id, userId: ada }).code).toBe('not_found');
    expect(given([created, adaJoined, removed]).when({ type: 'AddOrganizationMember', organizationId: id, userId: ada, role: 'member' }).code).toBeNull();
  });

  it('answers not found for members of unknown organizations and unknown members', () => {
    expect(given([]).when({ type: 'AddOrganizationMember', organizationId: id, userId: ada, role: 'member' }).code).toBe('not_found');
    expect(given([created]).when({ type: 'ChangeOrganizationMemberRole', organizationId: id, userId: bob, role: 'admin' }).code).toBe('not_found');
    expect(given([created]).when({ type: 'RemoveOrganizationMember', organizationId: id, userId: bob }).code).toBe('not_found');
  });

  it('refuses members, even organization admins, and hides the organization from others', () => {
    expect(given([]).when({ type: 'CreateOrganization', id, name: 'Uni', country: null }, user(ada)).code).toBe('permission_denied');
    expect(given([created, adaJoined]).when({ type: 'ChangeOrganization', id, name: 'Mine' }, user(ada)).code).toBe('permission_denied');
    expect(given([created, adaJoined]).when({ type: 'ChangeOrganization', id, name: 'Mine' }, user(bob)).code).toBe('not_found');
  });
});
