import { projectionsRebuild } from '@cairn/cli';
import { findOrganizationMembershipId, membersGroupId } from '@cairn/projections';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type Group, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import {
  addToGroup,
  appendOrganizationEvents,
  createGroup,
  expectExactMemberCounts,
  getGroup,
  join,
  memberIds,
  newUser,
  organizationWith,
  patientReads,
  settle,
  sorted,
} from './groups-fixtures.ts';

// One server for the file: the two parts use organizations of their own.
let h: Harness;
let root: User;
const write = () => request(h.commandApp);

beforeAll(async () => {
  h = await startHarness('all', patientReads);
  root = await newUser(h, { admin: true });
});
afterAll(async () => h.close());

describe("an organization's members group", () => {
  it('exists from the organization\'s creation, with a deterministic id, and follows additions', async () => {
    const org = await organizationWith(h, 'Gamma Institute');
    const group = await getGroup(h, org.member, org.membersGroupId);
    expect(group).toMatchObject({ id: membersGroupId(org.id), organization_id: org.id, name: 'Gamma Institute members', type: 'members', member_count: 2 });
    expect(group.description).toBe('Every member of the organization.');
    expect(await memberIds(h, org.member, org.membersGroupId)).toEqual(sorted([org.admin.id, org.member.id]));

    const newcomer = await newUser(h);
    await join(h, org.id, newcomer);
    const after = await getGroup(h, newcomer, org.membersGroupId);
    expect(after.member_count).toBe(3);
    expect(after.updated_at >= group.updated_at).toBe(true);
    expect(await memberIds(h, newcomer, org.membersGroupId)).toEqual(sorted([org.admin.id, org.member.id, newcomer.id]));
    const mine = await request(h.queryApp).get('/api/groups/').query({ user: 'me' }).set(bearer(newcomer)).expect(200);
    expect((mine.body as Group[]).map((g) => g.id)).toEqual([org.membersGroupId]);
  });

  it('follows removals, renames and role changes of the organization', async () => {
    const org = await organizationWith(h, 'Delta');
    await appendOrganizationEvents(h, org.id, [{ type: 'OrganizationMemberRemoved', data: { organizationId: org.id, userId: org.member.id } }]);
    expect(await memberIds(h, root, org.membersGroupId)).toEqual([org.admin.id]);
    expect((await getGroup(h, root, org.membersGroupId)).member_count).toBe(1);
    const theirs = await request(h.queryApp).get('/api/groups/').query({ user: org.member.id }).set(bearer(root)).expect(200);
    expect(theirs.body).toEqual([]);

    await appendOrganizationEvents(h, org.id, [{ type: 'OrganizationRenamed', data: { id: org.id, name: 'Delta Foundation' } }]);
    expect((await getGroup(h, root, org.membersGroupId)).name).toBe('Delta Foundation members');

    const before = await getGroup(h, root, org.membersGroupId);
    await appendOrganizationEvents(h, org.id, [{ type: 'OrganizationMemberRoleChanged', data: { organizationId: org.id, userId: org.admin.id, role: 'member' } }]);
    expect(await getGroup(h, root, org.membersGroupId)).toEqual(before);
    expect(await memberIds(h, root, org.membersGroupId)).toEqual([org.admin.id]);
    await expectExactMemberCounts(h);
  });

  it('cannot be deleted or have its members changed by hand', async () => {
    const org = await organizationWith(h, 'Epsilon');
    await join(h, org.id, await newUser(h));
    const attempts = (caller: User) => [
      write().delete(`/api/groups/${org.membersGroupId}/`).set(bearer(caller)),
      write().post(`/api/groups/${org.membersGroupId}/members/`).set(bearer(caller)).send({ user_id: org.member.id }),
      write().delete(`/api/groups/${org.membersGroupId}/members/${org.member.id}/`).set(bearer(caller)),
    ];
    for (const caller of [org.admin, root]) {
      for (const attempt of attempts(caller)) {
        const res = await attempt.expect(409);
        expect(res.body).toMatchObject({ status: 409, code: 'members_group_managed' });
      }
    }
    for (const attempt of attempts(org.member)) expect((await attempt.expect(403)).body.code).toBe('permission_denied');
    const stranger = await newUser(h);
    for (const attempt of attempts(stranger)) expect((await attempt.expect(404)).body.code).toBe('not_found');
    expect(await getGroup(h, root, org.membersGroupId)).toMatchObject({ name: 'Epsilon members', member_count: 3 });
  });

  it('may be renamed and described by whoever may rename groups; its membership and later organization renames leave the name alone', async () => {
    const org = await organizationWith(h, 'Kappa');
    const patch = (caller: User, body: Record<string, unknown>) => write().patch(`/api/groups/${org.membersGroupId}/`).set(bearer(caller)).send(body);
    // DECISIONS §8: the same roles as for any group (interface 4.6), with the same refusals.
    expect((await patch(org.member, { name: 'Everyone' }).expect(403)).body.code).toBe('permission_denied');
    expect((await patch(await newUser(h), { name: 'Everyone' }).expect(404)).body.code).toBe('not_found');
    expect(Object.keys((await patch(org.admin, { name: 'x'.repeat(256) }).expect(400)).body.errors ?? {})).toEqual(['name']);

    const renamed = await patch(org.admin, { name: ' Everyone at Kappa ' });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({ id: org.membersGroupId, name: 'Everyone at Kappa', type: 'members', member_count: 2 });
    expect(renamed.headers['x-consistency-token']).toBeTruthy();
    expect((await patch(root, { description: 'All of Kappa' }).expect(200)).body).toMatchObject({ name: 'Everyone at Kappa', description: 'All of Kappa' });

    // Its membership still follows the organization; a renamed organization keeps the given name.
    const newcomer = await newUser(h);
    await join(h, org.id, newcomer);
    await appendOrganizationEvents(h, org.id, [{ type: 'OrganizationRenamed', data: { id: org.id, name: 'Kappa Foundation' } }]);
    expect(await getGroup(h, newcomer, org.membersGroupId)).toMatchObject({ name: 'Everyone at Kappa', type: 'members', member_count: 3 });
    expect(await memberIds(h, root, org.membersGroupId)).toEqual(sorted([org.admin.id, org.member.id, newcomer.id]));
    const found = await request(h.queryApp).get('/api/groups/').query({ q: 'everyone at' }).set(bearer(newcomer)).expect(200);
    expect((found.body as Group[]).map((g) => g.id)).toEqual([org.membersGroupId]);
  });
});

describe('custom groups as the organization membership changes', () => {
  it('drops a user who leaves the organization from its custom groups, and not from others', async () => {
    const org = await organizationWith(h, 'Zeta');
    const other = await organizationWith(h, 'Eta');
    await join(h, other.id, org.member);
    const mine = await createGroup(h, org.admin, org.id, 'Zeta Team');
    const theirs = await createGroup(h, other.admin, other.id, 'Eta Team');
    await addToGroup(h, org.admin, mine.id, org.member.id);
    await addToGroup(h, org.admin, mine.id, org.admin.id);
    await addToGroup(h, other.admin, theirs.id, org.member.id);

    await appendOrganizationEvents(h, org.id, [{ type: 'OrganizationMemberRemoved', data: { organizationId: org.id, userId: org.member.id } }]);
    expect(await memberIds(h, root, mine.id)).toEqual([org.admin.id]);
    expect((await getGroup(h, root, mine.id)).member_count).toBe(1);
    expect(await memberIds(h, root, theirs.id)).toEqual([org.member.id]);
    const left = await request(h.queryApp).get('/api/groups/').query({ user: org.member.id }).set(bearer(root)).expect(200);
    expect((left.body as Group[]).map((g) => g.name)).toEqual(['Eta members', 'Eta Team']);

    // No longer a member of the organization: cannot be added, and there is nothing to remove.
    const refused = await write().post(`/api/groups/${mine.id}/members/`).set(bearer(org.admin)).send({ user_id: org.member.id }).expect(404);
    expect(refused.body).toMatchObject({ code: 'not_found', errors: { user_id: ['Not found.'] } });
    await write().delete(`/api/groups/${mine.id}/members/${org.member.id}/`).set(bearer(org.admin)).expect(404);
    await expectExactMemberCounts(h);
  });

  it('does not give back old group memberships to a user who joins again', async () => {
    const org = await organizationWith(h, 'Theta');
    const group = await createGroup(h, org.admin, org.id, 'Theta Team');
    await addToGroup(h, org.admin, group.id, org.member.id);
    await appendOrganizationEvents(h, org.id, [{ type: 'OrganizationMemberRemoved', data: { organizationId: org.id, userId: org.member.id } }]);
    await appendOrganizationEvents(h, org.id, [{ type: 'OrganizationMemberAdded', data: { organizationId: org.id, userId: org.member.id, role: 'member' } }]);

    expect(await memberIds(h, root, org.membersGroupId)).toEqual(sorted([org.admin.id, org.member.id]));
    expect(await memberIds(h, root, group.id)).toEqual([]);
    expect((await getGroup(h, root, group.id)).member_count).toBe(0);

    // Added again under the new membership: not a duplicate of the old one.
    await addToGroup(h, org.admin, group.id, org.member.id);
    expect(await memberIds(h, root, group.id)).toEqual([org.member.id]);
    expect((await write().post(`/api/groups/${group.id}/members/`).set(bearer(org.admin)).send({ user_id: org.member.id }).expect(409)).body.code).toBe('already_member');
    await write().delete(`/api/groups/${group.id}/members/${org.member.id}/`).set(bearer(org.admin)).expect(204);
    expect(await memberIds(h, root, group.id)).toEqual([]);
    await expectExactMemberCounts(h);
  });

  it('ignores an addition decided on a membership that ended before it was stored', async () => {
    const org = await organizationWith(h, 'Iota');
    const group = await createGroup(h, org.admin, org.id, 'Iota Team');
    const membershipId = await findOrganizationMembershipId(h.resources.db, org.id, org.member.id);
    expect(membershipId).not.toBeNull();
    await appendOrganizationEvents(h, org.id, [{ type: 'OrganizationMemberRemoved', data: { organizationId: org.id, userId: org.member.id } }]);
    // The race: the route read the membership, then the user left, then the addition was appended.
    const metadata = { actorId: org.admin.id, requestId: null, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() };
    await h.resources.eventStore.appendToStream(
      `group-${group.id}`,
      [{ id: randomUUID(), type: 'GroupMemberAdded', schemaVersion: 1, data: { groupId: group.id, userId: org.member.id, membershipId }, metadata }],
      { expectedVersion: 'any' },
    );
    await settle(h);
    expect(await memberIds(h, root, group.id)).toEqual([]);
    expect((await getGroup(h, root, group.id)).member_count).toBe(0);
  });

  it('rebuilds to the same rows', async () => {
    const before = await h.resources.pool.query('select * from groups order by id');
    const membersBefore = await h.resources.pool.query('select * from group_members order by group_id, user_id');
    expect(before.rows.length).toBeGreaterThan(0);
    await projectionsRebuild(h.resources, ['groups']);
    await settle(h);
    expect((await h.resources.pool.query('select * from groups order by id')).rows).toEqual(before.rows);
    expect((await h.resources.pool.query('select * from group_members order by group_id, user_id')).rows).toEqual(membersBefore.rows);
  });
});
