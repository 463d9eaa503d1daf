import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { addMember, createCountrySet, createProject, projectWorld } from './projects-fixtures.ts';

/**
 * Every route of projects and country sets, asked by every kind of caller. Writes that
 * consume their target (deletes, member additions) get a fresh one per caller.
 */
const roles = ['anonymous', 'outsider', 'organizationMember', 'viewer', 'member', 'projectAdmin', 'organizationAdmin', 'systemAdmin'] as const;
type Role = (typeof roles)[number];
type Expected = Record<Role, number>;

const visibleOnly = (ok: number): Expected => ({ anonymous: 401, outsider: 404, organizationMember: 404, viewer: ok, member: ok, projectAdmin: ok, organizationAdmin: ok, systemAdmin: ok });
const managersOnly = (ok: number): Expected => ({ ...visibleOnly(ok), viewer: 403, member: 403 });

describe('who may do what on projects and country sets', () => {
  let h: Harness;
  let world: Awaited<ReturnType<typeof projectWorld>>;
  const callers = (): Record<Exclude<Role, 'anonymous'>, User> => ({
    outsider: world.outsider,
    organizationMember: world.organizationMember,
    viewer: world.viewer,
    member: world.member,
    projectAdmin: world.projectAdmin,
    organizationAdmin: world.organizationAdmin,
    systemAdmin: world.systemAdmin,
  });

  beforeAll(async () => {
    h = await startHarness('all');
    world = await projectWorld(h, 'Matrix');
  });
  afterAll(async () => h.close());

  /** A project like the world's one (same admin, member and viewer), made fresh. */
  async function freshProject() {
    const project = await createProject(h, world.projectAdmin, world.organizationId, 'Fresh');
    await addMember(h, world.projectAdmin, project.id, world.member, 'member');
    await addMember(h, world.projectAdmin, project.id, world.viewer, 'viewer');
    return project;
  }

  type Call = (as: ReturnType<typeof request>, auth: Record<string, string>) => Promise<request.Response>;

  async function statuses(prepare: () => Promise<Call>): Promise<Expected> {
    const result = {} as Expected;
    for (const role of roles) {
      const call = await prepare();
      const auth: Record<string, string> = role === 'anonymous' ? {} : bearer(callers()[role]);
      result[role] = (await call(request(h.commandApp), auth)).status;
    }
    return result;
  }

  const projectId = () => world.project.id;

  const cases: [string, () => Promise<Call>, Expected][] = [
    ['GET /api/projects/', async () => (r, a) => r.get('/api/projects/').set(a), { ...visibleOnly(200), outsider: 200, organizationMember: 200 }],
    [
      'POST /api/projects/',
      async () => (r, a) => r.post('/api/projects/').set(a).send({ name: 'New', organization_id: world.organizationId }),
      // Only members of the organization (viewer and member are in the project only).
      { anonymous: 401, outsider: 404, organizationMember: 201, viewer: 404, member: 404, projectAdmin: 201, organizationAdmin: 201, systemAdmin: 201 },
    ],
    ['GET /api/projects/{id}/', async () => (r, a) => r.get(`/api/projects/${projectId()}/`).set(a), visibleOnly(200)],
    ['PATCH /api/projects/{id}/', async () => (r, a) => r.patch(`/api/projects/${projectId()}/`).set(a).send({ description: `by ${Math.random()}` }), managersOnly(200)],
    [
      'DELETE /api/projects/{id}/',
      async () => {
        const project = await freshProject();
        return (r, a) => r.delete(`/api/projects/${project.id}/`).set(a);
      },
      managersOnly(204),
    ],
    ['GET /api/projects/{id}/members/', async () => (r, a) => r.get(`/api/projects/${projectId()}/members/`).set(a), visibleOnly(200)],
    [
      'POST /api/projects/{id}/members/',
      async () => {
        const newcomer = await h.createUser();
        return (r, a) => r.post(`/api/projects/${projectId()}/members/`).set(a).send({ user_id: newcomer.id, role: 'viewer' });
      },
      managersOnly(201),
    ],
    [
      'PATCH /api/projects/{id}/members/{user_id}/',
      async () => {
        const target = await h.createUser();
        await addMember(h, world.projectAdmin, projectId(), target, 'viewer');
        return (r, a) => r.patch(`/api/projects/${projectId()}/members/${target.id}/`).set(a).send({ role: 'member' });
      },
      managersOnly(200),
    ],
    [
      'DELETE /api/projects/{id}/members/{user_id}/',
      async () => {
        const target = await h.createUser();
        await addMember(h, world.projectAdmin, projectId(), target, 'member');
        return (r, a) => r.delete(`/api/projects/${projectId()}/members/${target.id}/`).set(a);
      },
      managersOnly(204),
    ],
    ['POST /api/projects/{id}/star/', async () => (r, a) => r.post(`/api/projects/${projectId()}/star/`).set(a), visibleOnly(204)],
    ['DELETE /api/projects/{id}/star/', async () => (r, a) => r.delete(`/api/projects/${projectId()}/star/`).set(a), visibleOnly(204)],
    // Country sets belong to the organization: its members read, its admins (and system administrators) write.
    [
      'GET /api/country-sets/',
      async () => (r, a) => r.get('/api/country-sets/').set(a),
      { anonymous: 401, outsider: 200, organizationMember: 200, viewer: 200, member: 200, projectAdmin: 200, organizationAdmin: 200, systemAdmin: 200 },
    ],
    [
      'POST /api/country-sets/',
      async () => (r, a) => r.post('/api/country-sets/').set(a).send({ organization_id: world.organizationId, name: 'S', kind: 'allowed', countries: ['DE'] }),
      { anonymous: 401, outsider: 404, organizationMember: 403, viewer: 404, member: 404, projectAdmin: 403, organizationAdmin: 201, systemAdmin: 201 },
    ],
    [
      'GET /api/country-sets/{id}/',
      async () => {
        const set = await createCountrySet(h, world.organizationAdmin, world.organizationId, 'G', 'allowed', ['DE']);
        return (r, a) => r.get(`/api/country-sets/${set.id}/`).set(a);
      },
      { anonymous: 401, outsider: 404, organizationMember: 200, viewer: 404, member: 404, projectAdmin: 200, organizationAdmin: 200, systemAdmin: 200 },
    ],
    [
      'PATCH /api/country-sets/{id}/',
      async () => {
        const set = await createCountrySet(h, world.organizationAdmin, world.organizationId, 'P', 'allowed', ['DE']);
        return (r, a) => r.patch(`/api/country-sets/${set.id}/`).set(a).send({ countries: ['AT'] });
      },
      { anonymous: 401, outsider: 404, organizationMember: 403, viewer: 404, member: 404, projectAdmin: 403, organizationAdmin: 200, systemAdmin: 200 },
    ],
    [
      'DELETE /api/country-sets/{id}/',
      async () => {
        const set = await createCountrySet(h, world.organizationAdmin, world.organizationId, 'D', 'denied', ['KP']);
        return (r, a) => r.delete(`/api/country-sets/${set.id}/`).set(a);
      },
      { anonymous: 401, outsider: 404, organizationMember: 403, viewer: 404, member: 404, projectAdmin: 403, organizationAdmin: 204, systemAdmin: 204 },
    ],
  ];

  it.each(cases)('%s', async (_name, prepare, expected) => {
    expect(await statuses(prepare)).toEqual(expected);
  });

  it('lets members and viewers remove only themselves', async () => {
    const project = await freshProject();
    const other = await h.createUser();
    await addMember(h, world.projectAdmin, project.id, other, 'member');
    const refused = await request(h.commandApp).delete(`/api/projects/${project.id}/members/${other.id}/`).set(bearer(world.viewer)).expect(403);
    expect(refused.body.code).toBe('permission_denied');
    await request(h.commandApp).delete(`/api/projects/${project.id}/members/${world.viewer.id}/`).set(bearer(world.viewer)).expect(204);
    await request(h.commandApp).delete(`/api/projects/${project.id}/members/${world.member.id}/`).set(bearer(world.member)).expect(204);
  });

  it('answers 403 permission_denied with the error shape to callers who see but may not manage', async () => {
    const res = await request(h.commandApp).patch(`/api/projects/${projectId()}/`).set(bearer(world.viewer)).send({ name: 'x' }).expect(403);
    expect(res.body).toEqual({ status: 403, code: 'permission_denied', detail: expect.any(String) });
    const anonymous = await request(h.queryApp).get(`/api/projects/${projectId()}/`).expect(401);
    expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer/);
  });
});
