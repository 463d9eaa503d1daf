import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.ts';
import { addMember, createNamedUser, createOrganization, type TestUser } from './admin-fixtures.ts';

type Role = 'anonymous' | 'plain' | 'orgMember' | 'orgAdmin' | 'sysadmin';
type Route = {
  readonly name: string;
  readonly call: (token: string | null) => request.Test;
  /** The status each kind of caller gets, asked in the order of `roles`. */
  readonly expected: Readonly<Record<Role, number>>;
};

const roles: readonly Role[] = ['anonymous', 'plain', 'orgMember', 'orgAdmin', 'sysadmin'];
const adminOnly = (success: number) => ({ anonymous: 401, plain: 403, orgMember: 403, orgAdmin: 403, sysadmin: success });

/**
 * Every route of the administration slice, walked by every kind of caller. Denied callers
 * go first, each with a request that would succeed if it were allowed, so a refusal that
 * is missing shows up as a success (and as a 409 or 404 for the system administrator).
 */
describe('who may do what in administration', () => {
  let h: Harness;
  const callers = {} as Record<Exclude<Role, 'anonymous'>, TestUser>;
  let target: TestUser;
  let org: { id: string };
  let other: { id: string };

  beforeAll(async () => {
    h = await startHarness('all');
    callers.sysadmin = await createNamedUser(h, { name: 'Sys Admin', admin: true });
    callers.plain = await createNamedUser(h, { name: 'Plain User' });
    callers.orgMember = await createNamedUser(h, { name: 'Org Member' });
    callers.orgAdmin = await createNamedUser(h, { name: 'Org Admin' });
    target = await createNamedUser(h, { name: 'Target User' });
    org = await createOrganization(h, callers.sysadmin, { name: 'Matrix Org' });
    other = await createOrganization(h, callers.sysadmin, { name: 'Other Org' });
    await addMember(h, callers.sysadmin, callers.orgMember.id, org.id, 'member');
    await addMember(h, callers.sysadmin, callers.orgAdmin.id, org.id, 'admin');
  });
  afterAll(async () => h.close());

  const as = (test: request.Test, token: string | null) => (token ? test.auth(token, { type: 'bearer' }) : test);
  const routes = (): Route[] => [
    { name: 'GET /api/admin/users/', call: (t) => as(request(h.queryApp).get('/api/admin/users/'), t), expected: adminOnly(200) },
    { name: 'GET /api/admin/users/{id}/', call: (t) => as(request(h.queryApp).get(`/api/admin/users/${target.id}/`), t), expected: adminOnly(200) },
    {
      name: 'PATCH /api/admin/users/{id}/',
      call: (t) => as(request(h.commandApp).patch(`/api/admin/users/${target.id}/`), t).send({ is_system_admin: true }),
      expected: adminOnly(200),
    },
    {
      name: 'POST /api/admin/users/{id}/organizations/',
      call: (t) => as(request(h.commandApp).post(`/api/admin/users/${target.id}/organizations/`), t).send({ organization_id: other.id }),
      expected: adminOnly(201),
    },
    {
      name: 'PATCH /api/admin/users/{id}/organizations/{org_pk}/',
      call: (t) => as(request(h.commandApp).patch(`/api/admin/users/${target.id}/organizations/${other.id}/`), t).send({ role: 'admin' }),
      expected: adminOnly(200),
    },
    {
      name: 'DELETE /api/admin/users/{id}/organizations/{org_pk}/',
      call: (t) => as(request(h.commandApp).delete(`/api/admin/users/${target.id}/organizations/${other.id}/`), t),
      expected: adminOnly(204),
    },
    {
      name: 'GET /api/organizations/',
      call: (t) => as(request(h.queryApp).get('/api/organizations/'), t),
      expected: { anonymous: 401, plain: 200, orgMember: 200, orgAdmin: 200, sysadmin: 200 },
    },
    {
      name: 'GET /api/organizations/{id}/',
      call: (t) => as(request(h.queryApp).get(`/api/organizations/${org.id}/`), t),
      expected: { anonymous: 401, plain: 404, orgMember: 200, orgAdmin: 200, sysadmin: 200 },
    },
    {
      name: 'POST /api/organizations/',
      call: (t) => as(request(h.commandApp).post('/api/organizations/'), t).send({ name: 'Made In The Matrix' }),
      expected: adminOnly(201),
    },
    {
      name: 'PATCH /api/organizations/{id}/',
      call: (t) => as(request(h.commandApp).patch(`/api/organizations/${org.id}/`), t).send({ name: 'Matrix Org Renamed' }),
      expected: { anonymous: 401, plain: 404, orgMember: 403, orgAdmin: 403, sysadmin: 200 },
    },
  ];

  it('answers each caller as the rules say, route by route', async () => {
    const observed: Record<string, Record<Role, number>> = {};
    const expected: Record<string, Record<Role, number>> = {};
    for (const route of routes()) {
      expected[route.name] = { ...route.expected };
      const row = {} as Record<Role, number>;
      for (const role of roles) {
        const res = await route.call(role === 'anonymous' ? null : callers[role].token);
        row[role] = res.status;
        if (res.status === 401) expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      }
      observed[route.name] = row;
    }
    expect(observed).toEqual(expected);
  });

  it('left nothing changed by the refused callers', async () => {
    // Only the system administrator's calls took effect: the target was made an
    // administrator and joined then left the other organization; one organization was
    // created; Matrix Org was renamed once.
    const detail = await request(h.queryApp).get(`/api/admin/users/${target.id}/`).auth(callers.sysadmin.token, { type: 'bearer' }).expect(200);
    expect(detail.body).toMatchObject({ is_system_admin: true, organizations: [] });
    const all = await request(h.queryApp).get('/api/organizations/').auth(callers.sysadmin.token, { type: 'bearer' }).expect(200);
    expect((all.body as { name: string }[]).map((o) => o.name).sort()).toEqual(['Made In The Matrix', 'Matrix Org Renamed', 'Other Org']);
    const stream = await h.resources.eventStore.readStream(`organization-${other.id}`);
    expect(stream.events.map((e) => e.type)).toEqual(['OrganizationCreated', 'OrganizationMemberAdded', 'OrganizationMemberRoleChanged', 'OrganizationMemberRemoved']);
  });
});
