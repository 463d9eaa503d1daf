import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createProject, join, organization } from '../projects/projects-fixtures.ts';
import { bearer, type Project, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createAsset, setPermissions, type Asset } from './assets-fixtures.ts';

/**
 * Every asset route but the listing and the query, asked by every kind of caller. Each
 * caller gets a fresh asset (writes consume or change it). Callers named after flags hold
 * exactly those through a user entry; the project roles meet an asset their project owns.
 */
const flagHolders = {
  // A grant without READ_METADATA leaves the asset hidden.
  writeOnly: 2,
  read: 1,
  write: 1 | 2,
  delete: 1 | 128,
  manage: 1 | 256,
  // Content, notes and LIST: nothing these routes ask for beyond reading.
  otherFlags: 1 | 4 | 8 | 16 | 32 | 64,
} as const;
type FlagHolder = keyof typeof flagHolders;
const roles = ['anonymous', 'noGrant', 'writeOnly', 'read', 'write', 'delete', 'manage', 'otherFlags', 'owner', 'projectAdmin', 'projectMember', 'projectViewer', 'systemAdmin'] as const;
type Role = (typeof roles)[number];
type Expected = Record<Role, number>;
const projectRoles: readonly Role[] = ['projectAdmin', 'projectMember', 'projectViewer'];

/** Everyone who reads the asset gets `ok`; the others cannot tell it exists. */
const readers = (ok: number): Expected => ({
  anonymous: 401,
  noGrant: 404,
  writeOnly: 404,
  read: ok,
  write: ok,
  delete: ok,
  manage: ok,
  otherFlags: ok,
  owner: ok,
  projectAdmin: ok,
  projectMember: ok,
  projectViewer: ok,
  systemAdmin: ok,
});
/** Readers who hold the flag get `ok`; other readers 403. */
const holders = (ok: number, ...roles: Role[]): Expected => ({ ...readers(403), ...Object.fromEntries(roles.map((r) => [r, ok])) });

describe('who may do what on assets', () => {
  let h: Harness;
  let project: Project;
  let users: Record<Exclude<Role, 'anonymous'>, User>;

  beforeAll(async () => {
    h = await startHarness('all');
    const organizationId = await organization(h, 'Matrix Institute');
    const make = async () => h.createUser();
    users = {
      noGrant: await make(),
      writeOnly: await make(),
      read: await make(),
      write: await make(),
      delete: await make(),
      manage: await make(),
      otherFlags: await make(),
      owner: await make(),
      projectAdmin: await make(),
      projectMember: await make(),
      projectViewer: await make(),
      systemAdmin: await h.createUser({ admin: true }),
    };
    await join(h, organizationId, users.projectAdmin);
    project = await createProject(h, users.projectAdmin, organizationId, 'Matrix');
    await addMember(h, users.projectAdmin, project.id, users.projectMember, 'member');
    await addMember(h, users.projectAdmin, project.id, users.projectViewer, 'viewer');
  });
  afterAll(async () => h.close());

  /** An asset for this caller to meet: the project's for the project roles, the owner's for the others; the flag holders granted. */
  async function freshAsset(role: Role): Promise<Asset> {
    const byProject = projectRoles.includes(role);
    const creator = byProject ? users.projectAdmin : users.owner;
    const asset = await createAsset(h, creator, { title: `For ${role}`, ...(byProject ? { owner_type: 'project', owner_id: project.id } : {}) });
    await setPermissions(
      h,
      creator,
      asset.id,
      (Object.keys(flagHolders) as FlagHolder[]).map((holder) => ({ subject_type: 'user', subject_id: users[holder].id, flags: flagHolders[holder] })),
    );
    return asset;
  }

  type Call = (as: ReturnType<typeof request>, auth: Record<string, string>, asset: Asset, caller: User | null) => Promise<request.Response>;

  async function statuses(call: Call, options: { asset?: boolean } = {}): Promise<Expected> {
    const result = {} as Expected;
    for (const role of roles) {
      const caller = role === 'anonymous' ? null : users[role];
      const asset = options.asset === false ? ({} as Asset) : await freshAsset(role);
      const res = await call(request(h.commandApp), caller ? bearer(caller) : {}, asset, caller);
      result[role] = res.status;
    }
    return result;
  }

  const someone = () => users.noGrant.id;

  const cases: [string, Call, Expected, { asset?: boolean }?][] = [
    ['POST /api/assets/ (for oneself)', (r, a) => r.post('/api/assets/').set(a).send({ title: 'Mine' }), { ...readers(201), noGrant: 201, writeOnly: 201 }, { asset: false }],
    [
      'POST /api/assets/ (for the project)',
      (r, a) => r.post('/api/assets/').set(a).send({ title: 'Ours', owner_type: 'project', owner_id: project.id }),
      // Callers outside the project cannot tell it exists; its viewers see it but may not create for it.
      { ...readers(404), noGrant: 404, writeOnly: 404, projectAdmin: 201, projectMember: 201, projectViewer: 403, systemAdmin: 201 },
      { asset: false },
    ],
    ['GET /api/assets/{id}/', (r, a, asset) => r.get(`/api/assets/${asset.id}/`).set(a), readers(200)],
    ['PATCH /api/assets/{id}/', (r, a, asset) => r.patch(`/api/assets/${asset.id}/`).set(a).send({ description: 'changed' }), holders(200, 'write', 'owner', 'projectAdmin', 'projectMember', 'systemAdmin')],
    [
      'PATCH /api/assets/{id}/ (taking it over)',
      (r, a, asset, caller) => r.patch(`/api/assets/${asset.id}/`).set(a).send({ owner_type: 'user', owner_id: caller?.id ?? someone() }),
      holders(200, 'manage', 'owner', 'projectAdmin', 'systemAdmin'),
    ],
    ['DELETE /api/assets/{id}/', (r, a, asset) => r.delete(`/api/assets/${asset.id}/`).set(a), holders(204, 'delete', 'owner', 'projectAdmin', 'systemAdmin')],
    ['POST /api/assets/{id}/lock/', (r, a, asset) => r.post(`/api/assets/${asset.id}/lock/`).set(a).send({ locked: true, reason: 'matrix' }), holders(200, 'manage', 'owner', 'projectAdmin', 'systemAdmin')],
    ['POST /api/assets/{id}/star/', (r, a, asset) => r.post(`/api/assets/${asset.id}/star/`).set(a), readers(204)],
    ['DELETE /api/assets/{id}/star/', (r, a, asset) => r.delete(`/api/assets/${asset.id}/star/`).set(a), readers(204)],
    ['GET /api/assets/{id}/permissions/', (r, a, asset) => r.get(`/api/assets/${asset.id}/permissions/`).set(a), readers(200)],
    [
      'PUT /api/assets/{id}/permissions/',
      (r, a, asset, caller) =>
        r
          .put(`/api/assets/${asset.id}/permissions/`)
          .set(a)
          .send({ permissions: [{ subject_type: 'user', subject_id: caller?.id ?? someone(), flags: 1 | 256 }, { subject_type: 'public', flags: 1 }] }),
      holders(200, 'manage', 'owner', 'projectAdmin', 'systemAdmin'),
    ],
    [
      'POST /api/assets/permissions/bulk-merge/',
      (r, a, asset) => r.post('/api/assets/permissions/bulk-merge/').set(a).send({ asset_ids: [asset.id], permissions: [{ subject_type: 'user', subject_id: someone(), flags: 1 }] }),
      holders(204, 'manage', 'owner', 'projectAdmin', 'systemAdmin'),
    ],
    ['POST /api/assets/permissions/intersection/', (r, a, asset) => r.post('/api/assets/permissions/intersection/').set(a).send({ asset_ids: [asset.id] }), readers(200)],
  ];

  it.each(cases)('%s', async (_name, call, expected, options) => {
    expect(await statuses(call, options)).toEqual(expected);
  });

  it('shows each caller the flags they hold and why', async () => {
    const seen: Record<string, unknown> = {};
    for (const role of roles) {
      if (role === 'anonymous' || role === 'noGrant' || role === 'writeOnly') continue;
      const asset = await freshAsset(role);
      const body = (await request(h.queryApp).get(`/api/assets/${asset.id}/`).set(bearer(users[role])).expect(200)).body as Asset;
      seen[role] = [body.effective_flags, body.access_scope];
    }
    expect(seen).toEqual({
      read: [1, 'direct'],
      write: [3, 'direct'],
      delete: [129, 'direct'],
      manage: [257, 'direct'],
      otherFlags: [125, 'direct'],
      owner: [511, 'direct'],
      projectAdmin: [511, 'project'],
      projectMember: [127, 'project'],
      projectViewer: [85, 'project'],
      systemAdmin: [511, 'admin'],
    });
  });

  it('answers hidden and unknown assets alike, and 401 with WWW-Authenticate to anonymous callers', async () => {
    const asset = await freshAsset('noGrant');
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const [method, path] of [
      ['get', `/api/assets/{id}/`],
      ['patch', `/api/assets/{id}/`],
      ['delete', `/api/assets/{id}/`],
      ['post', `/api/assets/{id}/star/`],
      ['get', `/api/assets/{id}/permissions/`],
    ] as const) {
      const hidden = await request(h.commandApp)[method](path.replace('{id}', asset.id)).set(bearer(users.writeOnly)).send({});
      const missing = await request(h.commandApp)[method](path.replace('{id}', unknown)).set(bearer(users.writeOnly)).send({});
      expect([hidden.status, hidden.body]).toEqual([404, missing.body]);
    }
    // A new owner in the body: who may not give the asset away cannot tell an existing
    // project (or user) from a random id; who may, gets 404 naming owner_id for both.
    const granted = await freshAsset('read');
    const giveTo = (caller: User, body: Record<string, unknown>) => request(h.commandApp).patch(`/api/assets/${granted.id}/`).set(bearer(caller)).send(body);
    for (const caller of [users.read, users.write]) {
      const existing = await giveTo(caller, { owner_type: 'project', owner_id: project.id });
      const random = await giveTo(caller, { owner_type: 'project', owner_id: unknown });
      const person = await giveTo(caller, { owner_type: 'user', owner_id: users.noGrant.id });
      expect([existing.status, existing.body]).toEqual([403, random.body]);
      expect([person.status, person.body]).toEqual([403, random.body]);
    }
    const asManager = [await giveTo(users.manage, { owner_type: 'project', owner_id: project.id }), await giveTo(users.manage, { owner_type: 'project', owner_id: unknown })];
    expect(asManager.map((res) => res.status)).toEqual([404, 404]);
    expect(asManager[0]?.body).toEqual(asManager[1]?.body);
    // Echoing the current owner back with a change of fields is no giving away.
    await giveTo(users.write, { title: 'Echoed', owner_type: 'user', owner_id: users.owner.id }).expect(200);

    // A path id that is not a UUID is an unknown path.
    await request(h.queryApp).get('/api/assets/not-a-uuid/').set(bearer(users.owner)).expect(404);
    const anonymous = await request(h.queryApp).get(`/api/assets/${asset.id}/`).expect(401);
    expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(anonymous.body).toMatchObject({ status: 401, code: expect.any(String) });
  });
});
