import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type Group, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { addToGroup, appendOrganizationEvents, createGroup, join, newUser, organizationWith, patientReads } from './groups-fixtures.ts';

type Role = 'anonymous' | 'outsider' | 'member' | 'admin' | 'systemAdmin';
const roles: readonly Role[] = ['anonymous', 'outsider', 'member', 'admin', 'systemAdmin'];

/**
 * Every group route against every kind of caller (docs/groups.md): hidden groups are 404
 * for reads and writes alike, members of the organization read, its admins and system
 * administrators write.
 */
describe('who may do what with groups', () => {
  let h: Harness;
  let org: Awaited<ReturnType<typeof organizationWith>>;
  let callers: Record<Exclude<Role, 'anonymous'>, User>;
  const write = () => request(h.commandApp);
  const read = () => request(h.queryApp);
  const as = <T extends request.Test>(req: T, role: Role): T => (role === 'anonymous' ? req : (req.set(bearer(callers[role])) as T));

  beforeAll(async () => {
    h = await startHarness('all', patientReads);
    org = await organizationWith(h, 'Matrix Org');
    const outsider = await newUser(h);
    await organizationWith(h, 'Elsewhere').then((other) => join(h, other.id, outsider));
    callers = { outsider, member: org.member, admin: org.admin, systemAdmin: await newUser(h, { admin: true }) };
  });
  afterAll(async () => h.close());

  async function expectStatuses(expected: Record<Role, number>, send: (role: Role) => Promise<request.Response>) {
    for (const role of roles) {
      const res = await send(role);
      expect({ role, status: res.status, code: res.body?.code }).toMatchObject({ role, status: expected[role] });
      if (res.status === 401) expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    }
  }

  it('GET /api/groups/', async () => {
    const custom = await createGroup(h, org.admin, org.id, 'Listed');
    await expectStatuses({ anonymous: 401, outsider: 200, member: 200, admin: 200, systemAdmin: 200 }, async (role) => {
      const res = await as(read().get('/api/groups/'), role);
      if (res.status === 200) {
        const ids = (res.body as Group[]).map((g) => g.id);
        const sees = role !== 'outsider';
        expect(ids.includes(custom.id)).toBe(sees);
        expect(ids.includes(org.membersGroupId)).toBe(sees);
      }
      return res;
    });
  });

  it('GET /api/groups/{id}/ and /members/', async () => {
    const custom = await createGroup(h, org.admin, org.id, 'Readable');
    for (const id of [custom.id, org.membersGroupId]) {
      await expectStatuses({ anonymous: 401, outsider: 404, member: 200, admin: 200, systemAdmin: 200 }, (role) => as(read().get(`/api/groups/${id}/`), role));
      await expectStatuses({ anonymous: 401, outsider: 404, member: 200, admin: 200, systemAdmin: 200 }, (role) => as(read().get(`/api/groups/${id}/members/`), role));
    }
  });

  it('POST /api/groups/', async () => {
    const body = { organization_id: org.id, name: 'Made' };
    await expectStatuses({ anonymous: 401, outsider: 404, member: 403, admin: 201, systemAdmin: 201 }, (role) => as(write().post('/api/groups/'), role).send(body));
  });

  it('PATCH /api/groups/{id}/', async () => {
    const custom = await createGroup(h, org.admin, org.id, 'Patchable');
    await expectStatuses({ anonymous: 401, outsider: 404, member: 403, admin: 200, systemAdmin: 200 }, (role) =>
      as(write().patch(`/api/groups/${custom.id}/`), role).send({ name: `Patched by ${role}` }),
    );
    // DECISIONS §8: the members group is renamed by the same roles.
    await expectStatuses({ anonymous: 401, outsider: 404, member: 403, admin: 200, systemAdmin: 200 }, (role) =>
      as(write().patch(`/api/groups/${org.membersGroupId}/`), role).send({ name: `Members renamed by ${role}` }),
    );
  });

  it('DELETE /api/groups/{id}/', async () => {
    const groups = { admin: await createGroup(h, org.admin, org.id, 'Doomed A'), systemAdmin: await createGroup(h, org.admin, org.id, 'Doomed B') };
    const target = (role: Role) => (role === 'systemAdmin' ? groups.systemAdmin : groups.admin).id;
    await expectStatuses({ anonymous: 401, outsider: 404, member: 403, admin: 204, systemAdmin: 204 }, (role) => as(write().delete(`/api/groups/${target(role)}/`), role));
    await expectStatuses({ anonymous: 401, outsider: 404, member: 403, admin: 409, systemAdmin: 409 }, (role) => as(write().delete(`/api/groups/${org.membersGroupId}/`), role));
  });

  it('POST /api/groups/{id}/members/', async () => {
    const custom = await createGroup(h, org.admin, org.id, 'Joinable');
    const candidates = { admin: await newUser(h), systemAdmin: await newUser(h) };
    for (const user of Object.values(candidates)) await join(h, org.id, user);
    const candidate = (role: Role) => (role === 'systemAdmin' ? candidates.systemAdmin : candidates.admin).id;
    await expectStatuses({ anonymous: 401, outsider: 404, member: 403, admin: 201, systemAdmin: 201 }, (role) =>
      as(write().post(`/api/groups/${custom.id}/members/`), role).send({ user_id: candidate(role) }),
    );
    await expectStatuses({ anonymous: 401, outsider: 404, member: 403, admin: 409, systemAdmin: 409 }, (role) =>
      as(write().post(`/api/groups/${org.membersGroupId}/members/`), role).send({ user_id: org.member.id }),
    );
  });

  it('DELETE /api/groups/{id}/members/{user_id}/', async () => {
    const custom = await createGroup(h, org.admin, org.id, 'Leavable');
    await addToGroup(h, org.admin, custom.id, org.member.id);
    await addToGroup(h, org.admin, custom.id, org.admin.id);
    const leaver = (role: Role) => (role === 'systemAdmin' ? org.admin : org.member).id;
    await expectStatuses({ anonymous: 401, outsider: 404, member: 403, admin: 204, systemAdmin: 204 }, (role) =>
      as(write().delete(`/api/groups/${custom.id}/members/${leaver(role)}/`), role),
    );
    await expectStatuses({ anonymous: 401, outsider: 404, member: 403, admin: 409, systemAdmin: 409 }, (role) =>
      as(write().delete(`/api/groups/${org.membersGroupId}/members/${org.member.id}/`), role),
    );
  });

  it('follows a change of role in the organization', async () => {
    const custom = await createGroup(h, org.admin, org.id, 'Role Bound');
    const promoted = await newUser(h);
    await join(h, org.id, promoted);
    await write().patch(`/api/groups/${custom.id}/`).set(bearer(promoted)).send({ description: 'no' }).expect(403);
    // Admin of another organization: still not of this one.
    await join(h, (await organizationWith(h, 'Unrelated')).id, promoted, 'admin');
    await write().patch(`/api/groups/${custom.id}/`).set(bearer(promoted)).send({ description: 'still no' }).expect(403);
    const changeRole = (role: string) => appendOrganizationEvents(h, org.id, [{ type: 'OrganizationMemberRoleChanged', data: { organizationId: org.id, userId: promoted.id, role } }]);
    await changeRole('admin');
    await write().patch(`/api/groups/${custom.id}/`).set(bearer(promoted)).send({ description: 'now yes' }).expect(200);
    await changeRole('member');
    await write().patch(`/api/groups/${custom.id}/`).set(bearer(promoted)).send({ description: 'no again' }).expect(403);
    await read().get(`/api/groups/${custom.id}/`).set(bearer(promoted)).expect(200);
  });

  it('needs the write scope to write and the read scope to read', async () => {
    const readOnly = await newUser(h, { admin: true, scopes: 'read' });
    const denied = await write().post('/api/groups/').set(bearer(readOnly)).send({ organization_id: org.id, name: 'Scoped' }).expect(403);
    expect(denied.body.code).toBe('insufficient_scope');
    await read().get('/api/groups/').set(bearer(readOnly)).expect(200);
    const writeOnly = await newUser(h, { admin: true, scopes: 'write' });
    expect((await read().get('/api/groups/').set(bearer(writeOnly)).expect(403)).body.code).toBe('insufficient_scope');
  });
});
