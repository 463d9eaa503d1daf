import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset, setPermissions, type Asset } from '../assets/assets-fixtures.ts';
import { addMember, createProject, join, organization } from '../projects/projects-fixtures.ts';
import { bearer, type Project, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { attachAssets, createCollection, everyPage, setCollectionPermissions, type Collection } from './collections-fixtures.ts';

/**
 * Every collection route, asked by every kind of caller. Callers named after flags hold
 * exactly those through a user entry: on the collection itself, or (`ancestor…`) on its
 * parent, whence they flow down. The project roles meet a collection their project owns;
 * everyone else one that `owner` owns. Routes that change the collection get a fresh one
 * per caller.
 */
const direct = {
  // Without READ_METADATA the collection stays hidden.
  writeOnly: 2,
  read: 1,
  list: 1 | 64,
  write: 1 | 2,
  listWrite: 1 | 2 | 64,
  delete: 1 | 128,
  manage: 1 | 256,
} as const;
const onAncestor = {
  ancestorWriteOnly: 2,
  ancestorRead: 1,
  ancestorListWrite: 1 | 2 | 64,
  ancestorDelete: 1 | 128,
  ancestorManage: 1 | 256,
} as const;
type Holder = keyof typeof direct | keyof typeof onAncestor;
const roles = [
  'anonymous',
  'noGrant',
  ...(Object.keys(direct) as (keyof typeof direct)[]),
  ...(Object.keys(onAncestor) as (keyof typeof onAncestor)[]),
  'owner',
  'projectAdmin',
  'projectMember',
  'projectViewer',
  'systemAdmin',
] as const;
type Role = (typeof roles)[number];
type Expected = Record<Role, number>;
const projectRoles: readonly Role[] = ['projectAdmin', 'projectMember', 'projectViewer'];

/** Everyone who may see the collection gets `ok`; the others cannot tell it exists. */
const readers = (ok: number): Expected => ({
  ...(Object.fromEntries(roles.map((r) => [r, ok])) as Expected),
  anonymous: 401,
  noGrant: 404,
  writeOnly: 404,
  ancestorWriteOnly: 404,
});
/** Readers who hold what the route needs get `ok`; other readers 403. */
const holders = (ok: number, ...allowed: Role[]): Expected => ({ ...readers(403), ...Object.fromEntries(allowed.map((r) => [r, ok])) });
const writers: Role[] = ['write', 'listWrite', 'ancestorListWrite', 'owner', 'projectAdmin', 'projectMember', 'systemAdmin'];
const listers: Role[] = ['list', 'listWrite', 'ancestorListWrite', 'owner', 'projectAdmin', 'projectMember', 'projectViewer', 'systemAdmin'];
const deleters: Role[] = ['delete', 'ancestorDelete', 'owner', 'projectAdmin', 'systemAdmin'];
const managers: Role[] = ['manage', 'ancestorManage', 'owner', 'projectAdmin', 'systemAdmin'];

describe('who may do what on collections', () => {
  let h: Harness;
  let project: Project;
  let users: Record<Exclude<Role, 'anonymous'>, User>;
  /** The parent of every collection met (the ancestors' entries are on it), and where moves go; per world. */
  const worlds = {} as Record<'user' | 'project', { parent: Collection; target: Collection; shared: Collection }>;
  let publicAsset: Asset;

  beforeAll(async () => {
    h = await startHarness('all');
    const organizationId = await organization(h, 'Collection Matrix Institute');
    const make = () => h.createUser();
    users = {} as typeof users;
    for (const role of roles) if (role !== 'anonymous') users[role] = role === 'systemAdmin' ? await h.createUser({ admin: true }) : await make();
    await join(h, organizationId, users.projectAdmin);
    project = await createProject(h, users.projectAdmin, organizationId, 'Collection Matrix');
    await addMember(h, users.projectAdmin, project.id, users.projectMember, 'member');
    await addMember(h, users.projectAdmin, project.id, users.projectViewer, 'viewer');
    const holderIds = [...Object.keys(direct), ...Object.keys(onAncestor)] as Holder[];
    for (const kind of ['user', 'project'] as const) {
      const creator = kind === 'user' ? users.owner : users.projectAdmin;
      const owner = kind === 'user' ? {} : { owner_type: 'project', owner_id: project.id };
      const parent = await createCollection(h, creator, { title: `Matrix parent (${kind})`, ...owner });
      const target = await createCollection(h, creator, { title: `Matrix target (${kind})`, ...owner });
      if (kind === 'user') {
        await setCollectionPermissions(
          h,
          creator,
          parent.id,
          (Object.keys(onAncestor) as (keyof typeof onAncestor)[]).map((holder) => ({ subject_type: 'user', subject_id: users[holder].id, flags: onAncestor[holder] })),
        );
        // Every holder may LIST and WRITE_METADATA the target: a move then depends on the collection alone.
        await setCollectionPermissions(
          h,
          creator,
          target.id,
          holderIds.map((holder) => ({ subject_type: 'user', subject_id: users[holder].id, flags: 1 | 2 | 64 })),
        );
      }
      worlds[kind] = { parent, target, shared: await freshCollection(kind === 'user' ? 'owner' : 'projectAdmin', { parent }) };
    }
    publicAsset = await anyoneMayRead('Anyone may read this');
    await attachAssets(h, users.owner, worlds.user.shared.id, [publicAsset.id]);
    // Putting someone else's asset in a collection needs MANAGE on it (DECISIONS.md 2).
    await attachAssets(h, users.systemAdmin, worlds.project.shared.id, [publicAsset.id]);
  }, 120_000);
  afterAll(async () => h?.close());

  const worldOf = (role: Role) => (projectRoles.includes(role) ? worlds.project : worlds.user);

  /** A collection for this caller to meet, under its world's parent, with the direct holders' entries. */
  async function freshCollection(role: Role, options: { parent?: Collection; child?: boolean; asset?: Asset } = {}): Promise<Collection> {
    const byProject = projectRoles.includes(role);
    const creator = byProject ? users.projectAdmin : users.owner;
    const parent = options.parent ?? worldOf(role).parent;
    const c = await createCollection(h, creator, { title: `For ${role}`, parent_id: parent.id, ...(byProject ? { owner_type: 'project', owner_id: project.id } : {}) });
    if (!byProject)
      await setCollectionPermissions(
        h,
        creator,
        c.id,
        (Object.keys(direct) as (keyof typeof direct)[]).map((holder) => ({ subject_type: 'user', subject_id: users[holder].id, flags: direct[holder] })),
      );
    if (options.child) await createCollection(h, creator, { title: 'Child', parent_id: c.id, ...(byProject ? { owner_type: 'project', owner_id: project.id } : {}) });
    if (options.asset) await attachAssets(h, users.systemAdmin, c.id, [options.asset.id]);
    return c;
  }

  type Call = (as: ReturnType<typeof request>, auth: Record<string, string>, c: Collection, role: Role, asset: Asset) => Promise<request.Response>;
  /** `asset`: a readable asset of the caller's own, attached to the fresh collection (not shared: writes to one asset's stream would race). */
  type Options = { fresh?: boolean; child?: boolean; asset?: boolean; app?: 'command' | 'query' };

  async function anyoneMayRead(title: string): Promise<Asset> {
    const asset = await createAsset(h, users.owner, { title });
    await setPermissions(h, users.owner, asset.id, [{ subject_type: 'public', flags: 1 }]);
    return asset;
  }

  async function statuses(call: Call, options: Options = {}): Promise<Expected> {
    const result = {} as Expected;
    await Promise.all(
      roles.map(async (role) => {
        const caller = role === 'anonymous' ? null : users[role];
        const asset = options.fresh ? await anyoneMayRead(`For ${role}`) : publicAsset;
        const c = options.fresh ? await freshCollection(role, { child: options.child === true, ...(options.asset ? { asset } : {}) }) : worldOf(role).shared;
        const res = await call(request(options.app === 'query' ? h.queryApp : h.commandApp), caller ? bearer(caller) : {}, c, role, asset);
        result[role] = res.status;
      }),
    );
    return Object.fromEntries(roles.map((r) => [r, result[r]])) as Expected;
  }

  const ownerBody = (role: Role) => (projectRoles.includes(role) ? { owner_type: 'project', owner_id: project.id } : { owner_type: 'user', owner_id: users.owner.id });

  const cases: [string, Call, Expected, Options?][] = [
    ['GET /api/collections/', (r, a) => r.get('/api/collections/').set(a), { ...(Object.fromEntries(roles.map((r) => [r, 200])) as Expected), anonymous: 401 }, { app: 'query' }],
    [
      'POST /api/collections/ (under the collection, for its owner)',
      (r, a, c, role) =>
        r
          .post('/api/collections/')
          .set(a)
          .send({ title: 'Sub', parent_id: c.id, ...ownerBody(role) }),
      // Only the owner (a user, or a project's admins and members) creates in its tree; who
      // may not name the owner gets 404 on owner_id whether or not the parent exists (DECISIONS.md 1).
      { ...(Object.fromEntries(roles.map((r) => [r, 404])) as Expected), anonymous: 401, owner: 201, projectAdmin: 201, projectMember: 201, projectViewer: 403, systemAdmin: 201 },
    ],
    ['GET /api/collections/{id}/', (r, a, c) => r.get(`/api/collections/${c.id}/`).set(a), readers(200), { app: 'query' }],
    ['PATCH /api/collections/{id}/ (fields)', (r, a, c) => r.patch(`/api/collections/${c.id}/`).set(a).send({ description: 'changed' }), holders(200, ...writers), { fresh: true }],
    ['PATCH /api/collections/{id}/ (a move)', (r, a, c, role) => r.patch(`/api/collections/${c.id}/`).set(a).send({ parent_id: worldOf(role).target.id }), holders(200, ...managers), { fresh: true }],
    ['DELETE /api/collections/{id}/', (r, a, c) => r.delete(`/api/collections/${c.id}/`).set(a), holders(204, ...deleters), { fresh: true }],
    ['DELETE /api/collections/{id}/ (not empty)', (r, a, c) => r.delete(`/api/collections/${c.id}/`).set(a), holders(409, ...deleters), { fresh: true, child: true }],
    ['DELETE /api/collections/{id}/?recursive=true', (r, a, c) => r.delete(`/api/collections/${c.id}/?recursive=true`).set(a), holders(204, ...deleters), { fresh: true, child: true, asset: true }],
    ['GET /api/collections/{id}/assets/', (r, a, c) => r.get(`/api/collections/${c.id}/assets/`).set(a), holders(200, ...listers), { app: 'query' }],
    // Someone else's asset, which everyone may read: only who manages it may put it in (DECISIONS.md 2).
    ['POST /api/collections/{id}/assets/', (r, a, c, _role, asset) => r.post(`/api/collections/${c.id}/assets/`).set(a).send({ asset_ids: [asset.id] }), holders(204, 'owner', 'systemAdmin'), { fresh: true }],
    [
      "POST /api/collections/{id}/assets/ (the caller's own asset)",
      async (r, a, c, role, asset) => {
        const own = role === 'anonymous' ? asset : await createAsset(h, users[role], { title: `Own of ${role}` });
        return r.post(`/api/collections/${c.id}/assets/`).set(a).send({ asset_ids: [own.id] });
      },
      holders(204, ...writers),
      { fresh: true },
    ],
    // Taking it out: the collection's writers, and whoever manages the asset (here through the collection's own entries).
    ['DELETE /api/collections/{id}/assets/{asset_id}/', (r, a, c, _role, asset) => r.delete(`/api/collections/${c.id}/assets/${asset.id}/`).set(a), holders(204, ...writers, 'manage', 'ancestorManage'), { fresh: true, asset: true }],
    ['GET /api/collections/{id}/permissions/', (r, a, c) => r.get(`/api/collections/${c.id}/permissions/`).set(a), holders(200, ...managers), { app: 'query' }],
    [
      'PUT /api/collections/{id}/permissions/',
      (r, a, c) =>
        r
          .put(`/api/collections/${c.id}/permissions/`)
          .set(a)
          .send({ permissions: [{ subject_type: 'user', subject_id: users.noGrant.id, flags: 1 }] }),
      holders(200, ...managers),
      { fresh: true },
    ],
  ];

  it.each(cases)('%s', async (_name, call, expected, options) => {
    expect(await statuses(call, options)).toEqual(expected);
  });

  it('shows each caller the flags they hold and why, on the collection and below it', async () => {
    const seen: Record<string, unknown> = {};
    const below: Record<string, unknown> = {};
    for (const kind of ['user', 'project'] as const) {
      const creator = kind === 'user' ? users.owner : users.projectAdmin;
      const child = await createCollection(h, creator, { title: 'Below', parent_id: worlds[kind].shared.id, ...(kind === 'project' ? { owner_type: 'project', owner_id: project.id } : {}) });
      for (const role of roles) {
        if (role === 'anonymous' || (projectRoles.includes(role) !== (kind === 'project'))) continue;
        const res = await request(h.queryApp).get(`/api/collections/${worlds[kind].shared.id}/`).set(bearer(users[role]));
        seen[role] = res.status === 200 ? [res.body.effective_flags, res.body.access_scope] : res.status;
        const sub = await request(h.queryApp).get(`/api/collections/${child.id}/`).set(bearer(users[role]));
        below[role] = sub.status === 200 ? sub.body.effective_flags : sub.status;
      }
    }
    expect(seen).toEqual({
      noGrant: 404,
      writeOnly: 404,
      read: [1, 'direct'],
      list: [65, 'direct'],
      write: [3, 'direct'],
      listWrite: [67, 'direct'],
      delete: [129, 'direct'],
      manage: [257, 'direct'],
      ancestorWriteOnly: 404,
      ancestorRead: [1, 'direct'],
      ancestorListWrite: [67, 'direct'],
      ancestorDelete: [129, 'direct'],
      ancestorManage: [257, 'direct'],
      owner: [511, 'direct'],
      projectAdmin: [511, 'project'],
      projectMember: [127, 'project'],
      projectViewer: [85, 'project'],
      systemAdmin: [511, 'admin'],
    });
    // Entries flow down: the sub-collection gives each the same.
    expect(below).toEqual(Object.fromEntries(Object.entries(seen).map(([role, v]) => [role, Array.isArray(v) ? v[0] : v])));
  });

  it('lets the assets of a collection be read through its entries (and its ancestors’), never through its ownership alone', async () => {
    const theirs = await createAsset(h, users.noGrant, { title: 'Placed by its owner' });
    const c = await freshCollection('owner');
    await setCollectionPermissions(h, users.owner, c.id, [
      ...(Object.keys(direct) as (keyof typeof direct)[]).map((holder) => ({ subject_type: 'user', subject_id: users[holder].id, flags: direct[holder] })),
      { subject_type: 'user', subject_id: users.noGrant.id, flags: 1 | 2 },
    ]);
    await attachAssets(h, users.noGrant, c.id, [theirs.id]);
    const seen: Record<string, unknown> = {};
    for (const role of roles) {
      if (role === 'anonymous' || projectRoles.includes(role) || role === 'noGrant') continue;
      const res = await request(h.queryApp).get(`/api/assets/${theirs.id}/`).set(bearer(users[role]));
      seen[role] = res.status === 200 ? [res.body.effective_flags, res.body.access_scope] : res.status;
    }
    expect(seen).toEqual({
      writeOnly: 404,
      read: [1, 'collection'],
      list: [65, 'collection'],
      write: [3, 'collection'],
      listWrite: [67, 'collection'],
      delete: [129, 'collection'],
      manage: [257, 'collection'],
      ancestorWriteOnly: 404,
      ancestorRead: [1, 'collection'],
      ancestorListWrite: [67, 'collection'],
      ancestorDelete: [129, 'collection'],
      ancestorManage: [257, 'collection'],
      // The collection's owner holds every flag on the collection, but no entry reaches the asset.
      owner: 404,
      systemAdmin: [511, 'admin'],
    });
  });

  it('lists the collection to exactly those who may see it', async () => {
    const c = worlds.user.shared;
    const listed: Record<string, boolean> = {};
    for (const role of roles) {
      if (role === 'anonymous' || projectRoles.includes(role)) continue;
      // By owner, not by parent: a parent the caller cannot see lists nothing (docs/collections.md).
      listed[role] = (await everyPage<Collection>(h, users[role], `/api/collections/?owner_id=${users.owner.id}`, 1000)).some((x) => x.id === c.id);
    }
    const readersOf = readers(200);
    expect(listed).toEqual(Object.fromEntries(Object.keys(listed).map((role) => [role, readersOf[role as Role] === 200])));
    const projectListed = await Promise.all(projectRoles.map(async (role) => (await everyPage<Collection>(h, users[role as Exclude<Role, 'anonymous'>], `/api/collections/?owner_id=${project.id}`, 1000)).some((x) => x.id === worlds.project.shared.id)));
    expect(projectListed).toEqual([true, true, true]);
  });

  it('answers hidden and unknown collections alike, and 401 with WWW-Authenticate to anonymous callers', async () => {
    const c = worlds.user.shared;
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const [method, path, body] of [
      ['get', '/api/collections/{id}/', undefined],
      ['patch', '/api/collections/{id}/', { title: 'x' }],
      ['delete', '/api/collections/{id}/', undefined],
      ['get', '/api/collections/{id}/assets/', undefined],
      ['post', '/api/collections/{id}/assets/', { asset_ids: [publicAsset.id] }],
      ['delete', `/api/collections/{id}/assets/${publicAsset.id}/`, undefined],
      ['get', '/api/collections/{id}/permissions/', undefined],
      ['put', '/api/collections/{id}/permissions/', { permissions: [] }],
    ] as const) {
      const app = method === 'get' ? h.queryApp : h.commandApp;
      for (const hider of [users.writeOnly, users.ancestorWriteOnly, users.noGrant]) {
        const hidden = await request(app)[method](path.replace('{id}', c.id)).set(bearer(hider)).send(body);
        const missing = await request(app)[method](path.replace('{id}', unknown)).set(bearer(hider)).send(body);
        expect([method, path, hidden.status, hidden.body]).toEqual([method, path, 404, missing.body]);
      }
      const anonymous = await request(app)[method](path.replace('{id}', c.id)).send(body);
      expect([method, path, anonymous.status]).toEqual([method, path, 401]);
      expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer/);
    }
  });
});
