import { describe, expect, it } from 'vitest';
import type { CommandContext } from '../shared/command-context.ts';
import { givenFor } from '../shared/decider-spec.ts';
import type { OrganizationId, UserId } from '../shared/ids.ts';
import { projectAccess, roleFlags } from './access.ts';
import type { ProjectAuthority } from './commands.ts';
import { projectDecider } from './decide.ts';
import { defaultGeobound, type ProjectEvent, type ProjectId } from './events.ts';

const id = 'p1' as ProjectId;
const organizationId = 'o1' as OrganizationId;
const owner = 'owner' as UserId;
const member = 'member' as UserId;
const viewer = 'viewer' as UserId;
const stranger = 'stranger' as UserId;
const now = '2026-01-01T00:00:00.000Z';
const as = (userId: string, isSystemAdmin = false): CommandContext => ({ actor: { userId, isSystemAdmin }, now });
const inOrganization: ProjectAuthority = { organizationRole: 'member' };
const organizationAdmin: ProjectAuthority = { organizationRole: 'admin' };
const noAuthority: ProjectAuthority = { organizationRole: null };

const created: ProjectEvent[] = [
  { type: 'ProjectCreated', data: { id, organizationId, ownerId: owner, rootCollectionId: 'c1', name: 'Survey', description: '', ...defaultGeobound } },
  { type: 'ProjectMemberAdded', data: { projectId: id, userId: owner, role: 'admin' } },
  { type: 'ProjectMemberAdded', data: { projectId: id, userId: member, role: 'member' } },
  { type: 'ProjectMemberAdded', data: { projectId: id, userId: viewer, role: 'viewer' } },
];

const given = givenFor(projectDecider, as(owner));

describe('project decider', () => {
  it('creates a project with its creator as first admin, trimmed, with the restriction off', () => {
    const result = given([]).when({ type: 'CreateProject', id, organizationId, rootCollectionId: 'c1', name: ' Survey ', description: '', authority: inOrganization }, as(owner));
    expect(result.events).toEqual(created.slice(0, 2));
  });

  it('lets only members of the organization (or system administrators) create', () => {
    const command = { type: 'CreateProject', id, organizationId, rootCollectionId: 'c1', name: 'S', description: '', authority: noAuthority } as const;
    expect(given([]).when(command, as(stranger)).code).toBe('permission_denied');
    expect(given([]).when(command, as(stranger, true)).code).toBeNull();
    expect(given(created).when({ ...command, authority: inOrganization }, as(owner)).code).toBe('already_exists');
    expect(given([]).when({ ...command, authority: inOrganization, name: ' ' }, as(owner)).code).toBe('invalid_name');
    expect(given([]).when({ ...command, authority: inOrganization }, { actor: { userId: null, isSystemAdmin: true }, now }).code).toBe('owner_required');
  });

  it('records only the details that change, with countries as a sorted set', () => {
    const result = given(created).when(
      { type: 'ChangeProject', id, changes: { name: 'Survey', geoboundEnabled: true, geoboundAllowedCountries: ['FR', 'DE', 'FR'] }, authority: inOrganization },
      as(owner),
    );
    expect(result.events).toEqual([{ type: 'ProjectUpdated', data: { id, changes: { geoboundEnabled: true, geoboundAllowedCountries: ['DE', 'FR'] } } }]);
    expect(given(created).when({ type: 'ChangeProject', id, changes: { geoboundAllowedCountries: [] }, authority: inOrganization }, as(owner)).events).toEqual([]);
  });

  it('refuses bad countries and bases even without HTTP in front', () => {
    expect(given(created).when({ type: 'ChangeProject', id, changes: { geoboundAllowedCountries: ['de'] }, authority: inOrganization }, as(owner)).code).toBe('invalid_country');
    const basis = 'gps' as unknown as 'ip';
    expect(given(created).when({ type: 'ChangeProject', id, changes: { geoboundBasis: basis }, authority: inOrganization }, as(owner)).code).toBe('invalid_basis');
  });

  it('lets project admins, organization admins and system administrators manage; hides the project from strangers', () => {
    const change = (authority: ProjectAuthority) => ({ type: 'ChangeProject', id, changes: { description: 'x' }, authority }) as const;
    expect(given(created).when(change(noAuthority), as(owner)).code).toBeNull();
    expect(given(created).when(change(organizationAdmin), as(stranger)).code).toBeNull();
    expect(given(created).when(change(noAuthority), as(stranger, true)).code).toBeNull();
    expect(given(created).when(change(noAuthority), as(member)).code).toBe('permission_denied');
    expect(given(created).when(change(noAuthority), as(viewer)).code).toBe('permission_denied');
    // An organization member who is not in the project does not see it.
    expect(given(created).when(change(inOrganization), as(stranger)).code).toBe('not_found');
    expect(given([]).when(change(noAuthority), as(owner)).code).toBe('not_found');
  });

  it('manages members: no duplicates, no unknown ones, never without an admin', () => {
    const g = given(created);
    expect(g.when({ type: 'AddProjectMember', id, userId: stranger, role: 'viewer', authority: noAuthority }, as(owner)).events).toHaveLength(1);
    expect(g.when({ type: 'AddProjectMember', id, userId: member, role: 'viewer', authority: noAuthority }, as(owner)).code).toBe('already_member');
    expect(g.when({ type: 'ChangeProjectMemberRole', id, userId: stranger, role: 'admin', authority: noAuthority }, as(owner)).code).toBe('not_found');
    expect(g.when({ type: 'ChangeProjectMemberRole', id, userId: member, role: 'member', authority: noAuthority }, as(owner)).events).toEqual([]);
    expect(g.when({ type: 'ChangeProjectMemberRole', id, userId: owner, role: 'member', authority: noAuthority }, as(owner)).code).toBe('last_project_admin');
    expect(g.when({ type: 'RemoveProjectMember', id, userId: owner, authority: noAuthority }, as(owner)).code).toBe('last_project_admin');
    const twoAdmins = given([...created, { type: 'ProjectMemberRoleChanged', data: { projectId: id, userId: member, role: 'admin' } }]);
    expect(twoAdmins.when({ type: 'RemoveProjectMember', id, userId: owner, authority: noAuthority }, as(member)).events).toEqual([
      { type: 'ProjectMemberRemoved', data: { projectId: id, userId: owner } },
    ]);
    const role = 'owner' as unknown as 'admin';
    expect(g.when({ type: 'AddProjectMember', id, userId: stranger, role, authority: noAuthority }, as(owner)).code).toBe('invalid_role');
  });

  it('lets members leave on their own but not remove others', () => {
    const g = given(created);
    expect(g.when({ type: 'RemoveProjectMember', id, userId: viewer, authority: noAuthority }, as(viewer)).code).toBeNull();
    expect(g.when({ type: 'RemoveProjectMember', id, userId: viewer, authority: noAuthority }, as(member)).code).toBe('permission_denied');
  });

  it('stars per user, idempotently, for those who see the project', () => {
    const starred: ProjectEvent = { type: 'ProjectStarred', data: { projectId: id, userId: viewer } };
    expect(given(created).when({ type: 'StarProject', id, authority: noAuthority }, as(viewer)).events).toEqual([starred]);
    expect(given([...created, starred]).when({ type: 'StarProject', id, authority: noAuthority }, as(viewer)).events).toEqual([]);
    expect(given([...created, starred]).when({ type: 'UnstarProject', id, authority: noAuthority }, as(viewer)).events).toEqual([
      { type: 'ProjectUnstarred', data: { projectId: id, userId: viewer } },
    ]);
    expect(given(created).when({ type: 'UnstarProject', id, authority: noAuthority }, as(viewer)).events).toEqual([]);
    expect(given(created).when({ type: 'StarProject', id, authority: noAuthority }, as(stranger)).code).toBe('not_found');
  });

  it('deletes once', () => {
    const deleted: ProjectEvent = { type: 'ProjectDeleted', data: { id } };
    expect(given(created).when({ type: 'DeleteProject', id, authority: noAuthority }, as(owner)).events).toEqual([deleted]);
    expect(given([...created, deleted]).when({ type: 'DeleteProject', id, authority: noAuthority }, as(owner)).code).toBe('not_found');
  });
});

describe('project access', () => {
  it('gives the flags and scope of the strongest standing', () => {
    expect(roleFlags).toEqual({ admin: 511, member: 127, viewer: 85 });
    expect(projectAccess({ isSystemAdmin: false, memberRole: 'viewer', organizationRole: null })).toEqual({ visible: true, canManage: false, accessScope: 'direct', effectiveFlags: 85 });
    expect(projectAccess({ isSystemAdmin: false, memberRole: 'viewer', organizationRole: 'admin' })).toEqual({ visible: true, canManage: true, accessScope: 'direct', effectiveFlags: 511 });
    expect(projectAccess({ isSystemAdmin: false, memberRole: null, organizationRole: 'admin' })).toEqual({ visible: true, canManage: true, accessScope: 'organization', effectiveFlags: 511 });
    expect(projectAccess({ isSystemAdmin: true, memberRole: null, organizationRole: 'member' })).toEqual({ visible: true, canManage: true, accessScope: 'admin', effectiveFlags: 511 });
    expect(projectAccess({ isSystemAdmin: false, memberRole: null, organizationRole: 'member' })).toEqual({ visible: false, canManage: false, accessScope: null, effectiveFlags: 0 });
  });
});
