import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../assets/assets-fixtures.ts';
import { addMember, createProject, join, organization } from '../projects/projects-fixtures.ts';
import { bearer, uuidPattern, type Project, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { eventually, fsRepository, grantAllocation, startJobWorkers, upload, type Allocation, type Content } from './storage-fixtures.ts';

/**
 * Interface 4.2 and DECISIONS.md 4: every allocation route with its rules. Who sees and
 * who manages an allocation is in projections/src/storage/allocations.read.ts: a system
 * administrator; the owner user; members of the owner project or organization (seeing
 * only); an admin of the organization that holds the owner (the organization itself, its
 * projects, its members), who also manages. Choosing the default follows interface 4.2
 * exactly (DECISIONS §8): a system administrator; for a project's allocation also its admins
 * and its organization's admins.
 */

const unknownId = '00000000-0000-4000-8000-000000000000';
const allocationFields = ['id', 'owner_type', 'owner_id', 'repository_id', 'limit_bytes', 'used_bytes', 'is_default', 'created_at', 'updated_at'];

let h: Harness;
let systemAdmin: User;
let repoA: { id: string; dir: string };
let repoB: { id: string; dir: string };
let repoC: { id: string; dir: string };

/** One organization with a project, and people in every standing towards them. */
type World = {
  organizationId: string;
  project: Project;
  /** Admin of the organization, not in the project. */
  orgAdmin: User;
  /** Plain member of the organization, not in the project. */
  orgMember: User;
  /** Made the project (its admin); a plain member of the organization. */
  projectAdmin: User;
  projectMember: User;
  projectViewer: User;
};
let world: World;
/** Admin of another organization. */
let otherOrgAdmin: User;
/** In no organization and no project. */
let stranger: User;

beforeAll(async () => {
  h = await startHarness('all');
  systemAdmin = await h.createUser({ admin: true });
  [repoA, repoB, repoC] = [await fsRepository(h, 'alloc-a'), await fsRepository(h, 'alloc-b'), await fsRepository(h, 'alloc-c')];
  world = await makeWorld('Allocations');
  const otherOrganizationId = await organization(h, 'Elsewhere Institute');
  otherOrgAdmin = await h.createUser();
  await join(h, otherOrganizationId, otherOrgAdmin, 'admin');
  stranger = await h.createUser();
});
afterAll(async () => {
  await h.close();
});

async function makeWorld(name: string): Promise<World> {
  const organizationId = await organization(h, `${name} Institute`);
  const [orgAdmin, orgMember, projectAdmin, projectMember, projectViewer] = [await h.createUser(), await h.createUser(), await h.createUser(), await h.createUser(), await h.createUser()];
  await join(h, organizationId, orgAdmin, 'admin');
  await join(h, organizationId, orgMember);
  await join(h, organizationId, projectAdmin);
  const project = await createProject(h, projectAdmin, organizationId, name);
  await addMember(h, projectAdmin, project.id, projectMember, 'member');
  await addMember(h, projectAdmin, project.id, projectViewer, 'viewer');
  return { organizationId, project, orgAdmin, orgMember, projectAdmin, projectMember, projectViewer };
}

const create = (caller: User | null, body: Record<string, unknown>) => {
  const req = request(h.commandApp).post('/api/allocations/');
  return (caller ? req.set(bearer(caller)) : req).send(body);
};
const getOne = (caller: User, id: string) => request(h.queryApp).get(`/api/allocations/${id}/`).set(bearer(caller));
const list = (caller: User, query: Record<string, string> = {}) => request(h.queryApp).get('/api/allocations/').query(query).set(bearer(caller));
const patch = (caller: User, id: string, body: Record<string, unknown>) => request(h.commandApp).patch(`/api/allocations/${id}/`).set(bearer(caller)).send(body);
const remove = (caller: User, id: string) => request(h.commandApp).delete(`/api/allocations/${id}/`).set(bearer(caller));
const makeDefault = (caller: User, id: string) => request(h.commandApp).post(`/api/allocations/${id}/default/`).set(bearer(caller));
const ids = (body: unknown) => (body as Allocation[]).map((a) => a.id);

const grant = (owner_type: 'user' | 'project' | 'organization', owner_id: string, repository_id = repoA.id, limit_bytes = 10_000) =>
  grantAllocation(h, systemAdmin, { owner_type, owner_id, repository_id, limit_bytes });

describe('POST /api/allocations/', () => {
  it('answers 201 with the allocation, unused and not (yet) a default', async () => {
    const owner = await h.createUser();
    const res = await create(systemAdmin, { owner_type: 'user', owner_id: owner.id, repository_id: repoA.id, limit_bytes: 4096 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers['x-consistency-token']).toBeTruthy();
    const body = res.body as Allocation;
    for (const field of allocationFields) expect(body, field).toHaveProperty(field);
    expect(body).toMatchObject({ owner_type: 'user', owner_id: owner.id, repository_id: repoA.id, limit_bytes: 4096, used_bytes: 0, is_default: false });
    expect(body.id).toMatch(uuidPattern);
    expect(new Date(body.created_at).toISOString()).toBe(body.created_at);
    expect(new Date(body.updated_at).toISOString()).toBe(body.updated_at);
    // What was answered is what is read back.
    expect((await getOne(systemAdmin, body.id)).body).toEqual(body);
  });

  it('takes UUIDs in any case and answers them in lower case', async () => {
    const owner = await h.createUser();
    const res = await create(systemAdmin, { owner_type: 'user', owner_id: owner.id.toUpperCase(), repository_id: repoA.id.toUpperCase(), limit_bytes: 1 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ owner_id: owner.id, repository_id: repoA.id });
  });

  it('accepts a form body as well as JSON', async () => {
    const owner = await h.createUser();
    const res = await request(h.commandApp)
      .post('/api/allocations/')
      .set(bearer(systemAdmin))
      .type('form')
      .send({ owner_type: 'user', owner_id: owner.id, repository_id: repoA.id, limit_bytes: '2048' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.limit_bytes).toBe(2048);
  });

  it('answers 404 naming the field for an unknown owner or repository, 400 for a bad limit or a bad UUID', async () => {
    const owner = await h.createUser();
    const valid = { owner_type: 'user', owner_id: owner.id, repository_id: repoA.id, limit_bytes: 100 };
    const unknown: [Record<string, unknown>, string][] = [
      [{ ...valid, owner_id: unknownId }, 'owner_id'],
      [{ ...valid, owner_type: 'project', owner_id: unknownId }, 'owner_id'],
      [{ ...valid, owner_type: 'organization', owner_id: unknownId }, 'owner_id'],
      // A user's id is no project's id.
      [{ ...valid, owner_type: 'project' }, 'owner_id'],
      [{ ...valid, repository_id: unknownId }, 'repository_id'],
    ];
    for (const [body, field] of unknown) {
      const res = await create(systemAdmin, body);
      expect([res.status, res.body.code, res.body.errors], JSON.stringify(body)).toEqual([404, 'not_found', { [field]: ['Not found.'] }]);
    }
    const cases: [Record<string, unknown>, string][] = [
      [{ ...valid, limit_bytes: -1 }, 'limit_bytes'],
      [{ ...valid, limit_bytes: 1.5 }, 'limit_bytes'],
      [{ ...valid, limit_bytes: 'lots' }, 'limit_bytes'],
      [{ ...valid, limit_bytes: 2 ** 50 + 1 }, 'limit_bytes'],
      [{ ...valid, limit_bytes: undefined }, 'limit_bytes'],
      [{ ...valid, owner_id: 'not-a-uuid' }, 'owner_id'],
      [{ ...valid, repository_id: 'not-a-uuid' }, 'repository_id'],
      [{ ...valid, owner_type: 'group' }, 'owner_type'],
      [{ ...valid, owner_type: undefined }, 'owner_type'],
    ];
    for (const [body, field] of cases) {
      const res = await create(systemAdmin, body);
      expect([res.status, res.body.code, Object.keys(res.body.errors ?? {})], JSON.stringify(body)).toEqual([400, 'validation_error', [field]]);
    }
    // The limits themselves are allowed.
    expect((await create(systemAdmin, { ...valid, limit_bytes: 0 })).status).toBe(201);
    expect((await create(systemAdmin, { ...valid, limit_bytes: 2 ** 50 })).status).toBe(201);
    // Nothing refused was kept.
    expect((await list(systemAdmin, { owner_id: owner.id })).body.map((a: Allocation) => a.limit_bytes)).toEqual([0, 2 ** 50]);
  });

  it('answers 401 without credentials and 400 without a body', async () => {
    const res = await create(null, { owner_type: 'user', owner_id: stranger.id, repository_id: repoA.id, limit_bytes: 1 });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    const empty = await request(h.commandApp).post('/api/allocations/').set(bearer(systemAdmin));
    expect(empty.status).toBe(400);
  });

  it('answers 403 to a caller who does not manage the owner, keeping nothing', async () => {
    const { organizationId, project, orgMember, projectAdmin, projectMember } = world;
    const refused: [User, string, string][] = [
      // A plain user, even for themselves.
      [stranger, 'user', stranger.id],
      [orgMember, 'user', orgMember.id],
      [stranger, 'user', orgMember.id],
      // A project admin does not grant allocations, not even to the project.
      [projectAdmin, 'project', project.id],
      [projectMember, 'project', project.id],
      // A plain member of the organization.
      [orgMember, 'organization', organizationId],
      [orgMember, 'project', project.id],
      // An admin of another organization.
      [otherOrgAdmin, 'organization', organizationId],
      [otherOrgAdmin, 'project', project.id],
      [otherOrgAdmin, 'user', orgMember.id],
      // An organization admin for someone outside the organization.
      [world.orgAdmin, 'user', stranger.id],
      // Whether an owner exists is not told to who may not grant it anything (DECISIONS.md 1).
      [stranger, 'user', unknownId],
      [stranger, 'project', unknownId],
      [orgMember, 'organization', unknownId],
    ];
    for (const [caller, owner_type, owner_id] of refused) {
      const res = await create(caller, { owner_type, owner_id, repository_id: repoA.id, limit_bytes: 1 });
      expect([res.status, res.body.code], `${owner_type} ${owner_id}`).toEqual([403, 'permission_denied']);
    }
    for (const [, , ownerId] of refused) expect((await list(systemAdmin, { owner_id: ownerId })).body).toEqual([]);
  });

  it('lets an organization admin create for the organization, its projects and its members', async () => {
    const { organizationId, project, orgAdmin, orgMember, projectAdmin, projectMember } = world;
    const allowed: [string, string][] = [
      ['organization', organizationId],
      ['project', project.id],
      ['user', orgMember.id],
      ['user', projectAdmin.id],
      // The admin themselves: a member of the organization.
      ['user', orgAdmin.id],
    ];
    for (const [owner_type, owner_id] of allowed) {
      const res = await create(orgAdmin, { owner_type, owner_id, repository_id: repoC.id, limit_bytes: 77 });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ owner_type, owner_id, repository_id: repoC.id, limit_bytes: 77 });
    }
    // A member of the project who is not in the organization is no member of it.
    const res = await create(orgAdmin, { owner_type: 'user', owner_id: projectMember.id, repository_id: repoC.id, limit_bytes: 77 });
    expect(res.status).toBe(403);
  });
});

describe('GET /api/allocations/{id}/', () => {
  it('shows an allocation to those who may see it, and 404 (as for an unknown id) to the others', async () => {
    const { organizationId, project, orgAdmin, orgMember, projectAdmin, projectMember, projectViewer } = world;
    const [mine, ours, theirs] = [await grant('user', orgMember.id), await grant('project', project.id), await grant('organization', organizationId)];
    const missing = await getOne(systemAdmin, unknownId);
    expect(missing.status).toBe(404);
    const sees = (caller: User, allocation: Allocation) => getOne(caller, allocation.id).then((res) => [res.status, res.status === 200 ? res.body : missing.body]);

    // A user's: the owner, a system administrator, an admin of an organization they are in.
    for (const caller of [orgMember, systemAdmin, orgAdmin]) expect(await sees(caller, mine)).toEqual([200, mine]);
    for (const caller of [stranger, projectAdmin, otherOrgAdmin]) expect(await sees(caller, mine)).toEqual([404, missing.body]);
    // A project's: its members of every role, the admin of its organization; not the organization's plain members.
    for (const caller of [projectAdmin, projectMember, projectViewer, orgAdmin, systemAdmin]) expect(await sees(caller, ours)).toEqual([200, ours]);
    for (const caller of [orgMember, stranger, otherOrgAdmin]) expect(await sees(caller, ours)).toEqual([404, missing.body]);
    // An organization's: its members.
    for (const caller of [orgMember, projectAdmin, orgAdmin, systemAdmin]) expect(await sees(caller, theirs)).toEqual([200, theirs]);
    for (const caller of [projectMember, stranger, otherOrgAdmin]) expect(await sees(caller, theirs)).toEqual([404, missing.body]);
  });

  it('answers 404 for a path id that is not a UUID and 401 without credentials', async () => {
    expect((await request(h.queryApp).get('/api/allocations/nope/').set(bearer(systemAdmin))).status).toBe(404);
    const anonymous = await request(h.queryApp).get(`/api/allocations/${unknownId}/`);
    expect(anonymous.status).toBe(401);
  });
});

describe('GET /api/allocations/', () => {
  it('filters by owner_id, owner_type and repository_id, oldest first', async () => {
    const owner = await h.createUser();
    const onA = await grant('user', owner.id, repoA.id);
    const onB = await grant('user', owner.id, repoB.id);
    const projectOnB = await grant('project', world.project.id, repoB.id);
    const orgOnB = await grant('organization', world.organizationId, repoB.id);

    expect(ids((await list(systemAdmin, { owner_id: owner.id })).body)).toEqual([onA.id, onB.id]);
    expect(ids((await list(systemAdmin, { owner_id: owner.id, repository_id: repoB.id })).body)).toEqual([onB.id]);
    expect(ids((await list(systemAdmin, { owner_id: owner.id, owner_type: 'project' })).body)).toEqual([]);
    expect(ids((await list(systemAdmin, { owner_id: owner.id.toUpperCase(), owner_type: 'user' })).body)).toEqual([onA.id, onB.id]);

    const onRepoB = (await list(systemAdmin, { repository_id: repoB.id })).body as Allocation[];
    expect(onRepoB.every((a) => a.repository_id === repoB.id)).toBe(true);
    expect(ids(onRepoB)).toEqual(expect.arrayContaining([onB.id, projectOnB.id, orgOnB.id]));
    expect(ids(onRepoB)).not.toContain(onA.id);

    const projects = (await list(systemAdmin, { owner_type: 'project' })).body as Allocation[];
    expect(projects.every((a) => a.owner_type === 'project')).toBe(true);
    expect(ids(projects)).toContain(projectOnB.id);
    const organizations = (await list(systemAdmin, { owner_type: 'organization', repository_id: repoB.id })).body as Allocation[];
    expect(ids(organizations)).toContain(orgOnB.id);
    expect(organizations.every((a) => a.owner_type === 'organization' && a.repository_id === repoB.id)).toBe(true);

    // Oldest first.
    const all = (await list(systemAdmin)).body as Allocation[];
    const created = all.map((a) => a.created_at);
    expect(created).toEqual([...created].sort());
  });

  it('lists only what the caller sees', async () => {
    const owner = await h.createUser();
    const own = await grant('user', owner.id);
    await grant('user', stranger.id);
    expect(ids((await list(owner)).body)).toEqual([own.id]);
    expect((await list(owner, { owner_id: stranger.id })).body).toEqual([]);
    // A project's members see its allocations; no one outside sees them.
    const ours = await grant('project', world.project.id, repoC.id);
    expect(ids((await list(world.projectViewer, { owner_type: 'project' })).body)).toContain(ours.id);
    expect(ids((await list(world.orgMember, { owner_type: 'project' })).body)).not.toContain(ours.id);
  });

  it('refuses bad filters with 400 and anonymous callers with 401', async () => {
    for (const query of [{ owner_type: 'group' }, { owner_id: 'x' }, { repository_id: 'x' }, { organization_id: 'x' }]) {
      const res = await list(systemAdmin, query);
      expect([res.status, res.body.code, Object.keys(res.body.errors ?? {})], JSON.stringify(query)).toEqual([400, 'validation_error', Object.keys(query)]);
    }
    expect((await request(h.queryApp).get('/api/allocations/')).status).toBe(401);
  });

  it("with organization_id: every member's allocations and its own (not its projects'), for a system administrator or that organization's admin", async () => {
    const w = await makeWorld('Listing');
    const other = await makeWorld('Not Listed');
    const expected = [
      await grant('organization', w.organizationId),
      await grant('user', w.orgMember.id, repoB.id),
      await grant('user', w.projectAdmin.id),
      await grant('user', w.orgAdmin.id, repoC.id),
    ];
    // Interface 4.2 names members and the organization itself: its projects' allocations are not listed.
    const projects = await grant('project', w.project.id);
    // Not in the organization: a project member who only joined the project, outsiders, another organization.
    await grant('user', w.projectMember.id);
    await grant('user', stranger.id);
    await grant('organization', other.organizationId);
    await grant('project', other.project.id);
    await grant('user', other.orgMember.id);

    for (const caller of [systemAdmin, w.orgAdmin]) {
      const res = await list(caller, { organization_id: w.organizationId });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(ids(res.body).sort()).toEqual(expected.map((a) => a.id).sort());
      expect(ids(res.body)).not.toContain(projects.id);
    }
    expect((await list(w.orgAdmin, { organization_id: w.organizationId, owner_type: 'project' })).body).toEqual([]);
    // The other filters narrow it further.
    expect(ids((await list(w.orgAdmin, { organization_id: w.organizationId, owner_type: 'user' })).body).sort()).toEqual([expected[1]!.id, expected[2]!.id, expected[3]!.id].sort());
    expect(ids((await list(w.orgAdmin, { organization_id: w.organizationId, repository_id: repoB.id })).body)).toEqual([expected[1]!.id]);

    for (const caller of [w.orgMember, w.projectAdmin, w.projectMember, other.orgAdmin, otherOrgAdmin, stranger]) {
      const res = await list(caller, { organization_id: w.organizationId });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('permission_denied');
    }
  });
});

describe('PATCH /api/allocations/{id}/', () => {
  it('changes the limit for a manager: 200 with the allocation', async () => {
    const mine = await grant('user', world.orgMember.id, repoA.id, 1000);
    const res = await patch(systemAdmin, mine.id, { limit_bytes: 5000 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: mine.id, limit_bytes: 5000, used_bytes: 0, owner_id: world.orgMember.id });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(mine.updated_at));
    expect(res.body.created_at).toBe(mine.created_at);
    expect((await getOne(world.orgMember, mine.id)).body.limit_bytes).toBe(5000);
    // An organization admin manages their members' allocations.
    expect((await patch(world.orgAdmin, mine.id, { limit_bytes: 6000 })).body.limit_bytes).toBe(6000);
    // No limit given changes nothing.
    const unchanged = await patch(systemAdmin, mine.id, {});
    expect([unchanged.status, unchanged.body.limit_bytes]).toEqual([200, 6000]);
  });

  it('answers 403 to the owner, 404 to who cannot see it, 400 for a bad limit', async () => {
    const mine = await grant('user', world.orgMember.id, repoA.id, 1000);
    const byOwner = await patch(world.orgMember, mine.id, { limit_bytes: 10 ** 9 });
    expect([byOwner.status, byOwner.body.code]).toEqual([403, 'permission_denied']);
    const missing = await patch(stranger, unknownId, { limit_bytes: 1 });
    for (const caller of [stranger, otherOrgAdmin, world.projectAdmin]) {
      const res = await patch(caller, mine.id, { limit_bytes: 1 });
      expect([res.status, res.body]).toEqual([404, missing.body]);
    }
    for (const limit_bytes of [-1, 0.5, 'x', 2 ** 50 + 1, null]) {
      const res = await patch(systemAdmin, mine.id, { limit_bytes });
      expect([res.status, Object.keys(res.body.errors ?? {})], String(limit_bytes)).toEqual([400, ['limit_bytes']]);
    }
    expect((await getOne(systemAdmin, mine.id)).body.limit_bytes).toBe(1000);
  });

  it('may go below what is used: nothing is removed, and new content is refused with 409 allocation_exceeded', async () => {
    const owner = await h.createUser();
    const allocation = await grant('user', owner.id, repoA.id, 1000);
    const asset = await createAsset(h, owner);
    expect((await upload(h, owner, asset.id, Buffer.alloc(600, 1))).status).toBe(201);

    const lowered = await patch(systemAdmin, allocation.id, { limit_bytes: 100 });
    expect(lowered.status).toBe(200);
    expect(lowered.body).toMatchObject({ limit_bytes: 100, used_bytes: 600, content_count: 1 });

    for (const size of [1, 0]) {
      const refused = await upload(h, owner, asset.id, Buffer.alloc(size, 2));
      expect([refused.status, refused.body.code], `${size} bytes`).toEqual([409, 'allocation_exceeded']);
    }
    const contents = await request(h.queryApp).get(`/api/assets/${asset.id}/content/`).set(bearer(owner));
    expect(contents.body).toHaveLength(1);
    expect((await getOne(owner, allocation.id)).body).toMatchObject({ used_bytes: 600, content_count: 1 });

    expect((await patch(systemAdmin, allocation.id, { limit_bytes: 700 })).status).toBe(200);
    expect((await upload(h, owner, asset.id, Buffer.alloc(100, 3))).status).toBe(201);
    expect((await upload(h, owner, asset.id, Buffer.alloc(1, 4))).body.code).toBe('allocation_exceeded');
    expect((await getOne(owner, allocation.id)).body).toMatchObject({ used_bytes: 700, content_count: 2 });
  });
});

describe('DELETE /api/allocations/{id}/', () => {
  it('removes an unused allocation: 204, then it is gone', async () => {
    const owner = await h.createUser();
    const allocation = await grant('user', owner.id);
    const res = await remove(systemAdmin, allocation.id);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await getOne(systemAdmin, allocation.id)).status).toBe(404);
    expect((await list(systemAdmin, { owner_id: owner.id })).body).toEqual([]);
    expect((await remove(systemAdmin, allocation.id)).status).toBe(404);
  });

  it('answers 403 to the owner and to a project admin, 404 to who cannot see it; an organization admin may', async () => {
    const mine = await grant('user', world.orgMember.id);
    const ours = await grant('project', world.project.id);
    expect((await remove(world.orgMember, mine.id)).status).toBe(403);
    expect((await remove(world.projectAdmin, ours.id)).status).toBe(403);
    expect((await remove(stranger, mine.id)).status).toBe(404);
    expect((await remove(otherOrgAdmin, ours.id)).status).toBe(404);
    expect((await getOne(systemAdmin, mine.id)).status).toBe(200);
    expect((await remove(world.orgAdmin, mine.id)).status).toBe(204);
    expect((await remove(world.orgAdmin, ours.id)).status).toBe(204);
  });

  it('answers 409 allocation_in_use while content it pays for exists, and 204 once the content is deleted', async () => {
    const owner = await h.createUser();
    const allocation = await grant('user', owner.id);
    const asset = await createAsset(h, owner);
    const first = (await upload(h, owner, asset.id, Buffer.from('one'))).body as Content;
    const second = (await upload(h, owner, asset.id, Buffer.from('two'))).body as Content;
    expect([first.allocation_id, second.allocation_id]).toEqual([allocation.id, allocation.id]);

    const inUse = await remove(systemAdmin, allocation.id);
    expect([inUse.status, inUse.body.code]).toEqual([409, 'allocation_in_use']);
    expect((await request(h.commandApp).delete(`/api/assets/${asset.id}/content/${first.id}/`).set(bearer(owner))).status).toBe(204);
    expect((await remove(systemAdmin, allocation.id)).body.code).toBe('allocation_in_use');
    expect((await request(h.commandApp).delete(`/api/assets/${asset.id}/content/${second.id}/`).set(bearer(owner))).status).toBe(204);

    expect((await getOne(owner, allocation.id)).body).toMatchObject({ used_bytes: 0, content_count: 0 });
    expect((await remove(systemAdmin, allocation.id)).status).toBe(204);
    expect((await getOne(systemAdmin, allocation.id)).status).toBe(404);
    // Without an allocation, the owner can no longer add content.
    expect((await upload(h, owner, asset.id, Buffer.from('three'))).body.code).toBe('no_allocation');
  });
  it('frees an allocation once the content moved away, or its asset was deleted and purged in the background', async () => {
    const workers = await startJobWorkers(h);
    try {
      const owner = await h.createUser();
      const source = await grant('user', owner.id, repoA.id);
      const destination = await grant('user', owner.id, repoB.id);
      const moving = await createAsset(h, owner);
      const moved = (await upload(h, owner, moving.id, Buffer.from('moving'))).body as Content;
      expect(moved.allocation_id).toBe(source.id);
      const start = await request(h.commandApp).post(`/api/assets/${moving.id}/migrations/`).set(bearer(owner)).send({ target_repository_id: repoB.id });
      expect(start.status, JSON.stringify(start.body)).toBe(201);
      await eventually(async () => (await request(h.queryApp).get(`/api/assets/${moving.id}/migrations/`).set(bearer(owner))).body[0]?.status === 'succeeded');
      expect((await getOne(owner, source.id)).body).toMatchObject({ used_bytes: 0, content_count: 0 });
      expect((await getOne(owner, destination.id)).body).toMatchObject({ used_bytes: 6, content_count: 1 });
      expect((await remove(systemAdmin, source.id)).status).toBe(204);
      expect((await remove(systemAdmin, destination.id)).body.code).toBe('allocation_in_use');

      // Deleting the asset removes its content in the background; the allocation is then free.
      expect((await request(h.commandApp).delete(`/api/assets/${moving.id}/`).set(bearer(owner))).status).toBe(204);
      await eventually(async () => (await getOne(owner, destination.id)).body.content_count === 0);
      expect((await getOne(owner, destination.id)).body.used_bytes).toBe(0);
      expect((await remove(systemAdmin, destination.id)).status).toBe(204);
    } finally {
      await workers.stop();
    }
  });
});

describe('POST /api/allocations/{id}/default/', () => {
  it("makes it its owner's one default; the previous default stops being one", async () => {
    const owner = await h.createUser();
    const first = await grant('user', owner.id, repoA.id);
    const second = await grant('user', owner.id, repoB.id);
    const third = await grant('user', owner.id, repoC.id);
    const defaults = async () => Object.fromEntries(await Promise.all([first, second, third].map(async (a) => [a.id, (await getOne(owner, a.id)).body.is_default as boolean])));

    const chosen = await makeDefault(systemAdmin, first.id);
    expect(chosen.status, JSON.stringify(chosen.body)).toBe(200);
    expect(chosen.body).toMatchObject({ id: first.id, is_default: true, limit_bytes: first.limit_bytes });
    expect(chosen.headers['x-consistency-token']).toBeTruthy();
    expect(await defaults()).toEqual({ [first.id]: true, [second.id]: false, [third.id]: false });

    expect((await makeDefault(systemAdmin, second.id)).body.is_default).toBe(true);
    expect(await defaults()).toEqual({ [first.id]: false, [second.id]: true, [third.id]: false });

    // Again: nothing changes.
    expect((await makeDefault(systemAdmin, second.id)).status).toBe(200);
    expect(await defaults()).toEqual({ [first.id]: false, [second.id]: true, [third.id]: false });
    expect((await list(owner)).body.filter((a: Allocation) => a.is_default).map((a: Allocation) => a.id)).toEqual([second.id]);

    // Defaults are per owner: another owner's choice leaves this one's alone.
    const someoneElse = await h.createUser();
    const theirs = await grant('user', someoneElse.id, repoB.id);
    expect((await makeDefault(systemAdmin, theirs.id)).status).toBe(200);
    expect(await defaults()).toEqual({ [first.id]: false, [second.id]: true, [third.id]: false });
  });

  it("is allowed for a system administrator, the project's admins and its organization's admins; 403 to its other members", async () => {
    const { project, orgAdmin, orgMember, projectAdmin, projectMember, projectViewer } = world;
    const one = await grant('project', project.id, repoA.id);
    const two = await grant('project', project.id, repoB.id);
    const isDefault = async (a: Allocation) => (await getOne(systemAdmin, a.id)).body.is_default as boolean;

    for (const [caller, target, other] of [
      [projectAdmin, one, two],
      [orgAdmin, two, one],
      [systemAdmin, one, two],
    ] as const) {
      const res = await makeDefault(caller, target.id);
      expect([res.status, res.body.is_default]).toEqual([200, true]);
      expect([await isDefault(target), await isDefault(other)]).toEqual([true, false]);
    }
    // Members who are not admins see it but may not choose.
    for (const caller of [projectMember, projectViewer]) {
      const res = await makeDefault(caller, two.id);
      expect([res.status, res.body.code]).toEqual([403, 'permission_denied']);
    }
    // Who cannot see it cannot tell it exists.
    const missing = await makeDefault(stranger, unknownId);
    for (const caller of [orgMember, stranger, otherOrgAdmin]) {
      const res = await makeDefault(caller, two.id);
      expect([res.status, res.body]).toEqual([404, missing.body]);
    }
    expect([await isDefault(one), await isDefault(two)]).toEqual([true, false]);
  });

  it("of a user: only a system administrator chooses; the owner user and their organization's admins see it but get 403", async () => {
    const { orgAdmin, orgMember, projectAdmin } = world;
    const one = await grant('user', orgMember.id, repoA.id);
    const two = await grant('user', orgMember.id, repoB.id);
    // Interface 4.2 lists neither the owner user nor the admins of their organization.
    for (const caller of [orgMember, orgAdmin]) {
      const res = await makeDefault(caller, one.id);
      expect([res.status, res.body.code], JSON.stringify(res.body)).toEqual([403, 'permission_denied']);
    }
    expect((await getOne(orgMember, one.id)).body.is_default).toBe(false);
    expect((await makeDefault(systemAdmin, two.id)).body.is_default).toBe(true);
    // Another user of the same organization does not see it.
    expect((await makeDefault(projectAdmin, one.id)).status).toBe(404);
    expect((await makeDefault(stranger, one.id)).status).toBe(404);
    expect((await request(h.commandApp).post(`/api/allocations/${one.id}/default/`)).status).toBe(401);
  });

  it('of an organization: only a system administrator chooses; its admins and members see it but get 403', async () => {
    const { organizationId, orgAdmin, orgMember } = world;
    const one = await grant('organization', organizationId, repoA.id);
    const two = await grant('organization', organizationId, repoB.id);
    for (const caller of [orgAdmin, orgMember]) {
      const res = await makeDefault(caller, one.id);
      expect([res.status, res.body.code], JSON.stringify(res.body)).toEqual([403, 'permission_denied']);
    }
    expect((await makeDefault(otherOrgAdmin, two.id)).status).toBe(404);
    expect((await makeDefault(systemAdmin, two.id)).body.is_default).toBe(true);
    expect((await getOne(orgMember, one.id)).body.is_default).toBe(false);
  });

  it('leaves no default once the default is deleted: the oldest pays again', async () => {
    const owner = await h.createUser();
    const older = await grant('user', owner.id, repoA.id);
    const newer = await grant('user', owner.id, repoB.id);
    await makeDefault(systemAdmin, newer.id).expect(200);
    expect((await remove(systemAdmin, newer.id)).status).toBe(204);
    expect((await getOne(owner, older.id)).body.is_default).toBe(false);
    const asset = await createAsset(h, owner);
    expect(((await upload(h, owner, asset.id, Buffer.from('x'))).body as Content).allocation_id).toBe(older.id);
    // And another can be chosen.
    const third = await grant('user', owner.id, repoC.id);
    expect((await makeDefault(systemAdmin, third.id)).body.is_default).toBe(true);
    expect((await list(owner)).body.map((a: Allocation) => [a.id, a.is_default])).toEqual([[older.id, false], [third.id, true]]);
  });
});

describe('the allocation that pays for content', () => {
  it("is the owner's default when there are several; a repository_id field names the repository's allocation", async () => {
    const owner = await h.createUser();
    const onA = await grant('user', owner.id, repoA.id, 10_000);
    const onB = await grant('user', owner.id, repoB.id, 10_000);
    const asset = await createAsset(h, owner);
    const payer = async (options: { repositoryId?: string } = {}) => {
      const res = await upload(h, owner, asset.id, Buffer.from('paid'), options);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const content = res.body as Content;
      return [content.allocation_id, content.repository_id];
    };

    // No default yet: the oldest pays.
    expect(await payer()).toEqual([onA.id, repoA.id]);
    await makeDefault(systemAdmin, onB.id).expect(200);
    expect(await payer()).toEqual([onB.id, repoB.id]);
    expect(await payer({ repositoryId: repoA.id })).toEqual([onA.id, repoA.id]);
    expect(await payer({ repositoryId: repoB.id.toUpperCase() })).toEqual([onB.id, repoB.id]);
    await makeDefault(systemAdmin, onA.id).expect(200);
    expect(await payer()).toEqual([onA.id, repoA.id]);

    expect((await getOne(owner, onA.id)).body).toMatchObject({ used_bytes: 12, content_count: 3 });
    expect((await getOne(owner, onB.id)).body).toMatchObject({ used_bytes: 8, content_count: 2 });

    // A repository the owner has no allocation on: 409; one that does not exist: 404 naming it (DECISIONS.md 1).
    const unpaid = await upload(h, owner, asset.id, Buffer.from('x'), { repositoryId: repoC.id });
    expect([unpaid.status, unpaid.body.code]).toEqual([409, 'no_allocation']);
    const unknown = await upload(h, owner, asset.id, Buffer.from('x'), { repositoryId: unknownId });
    expect(unknown.body).toEqual({ status: 404, code: 'not_found', detail: expect.any(String), errors: { repository_id: ['Not found.'] } });
    const bad = await upload(h, owner, asset.id, Buffer.from('x'), { repositoryId: 'not-a-uuid' });
    expect([bad.status, Object.keys(bad.body.errors ?? {})]).toEqual([400, ['repository_id']]);
  });

  it("on a repository with several of the owner's allocations, is the default among them, else the oldest", async () => {
    const owner = await h.createUser();
    const older = await grant('user', owner.id, repoA.id, 10_000);
    const newer = await grant('user', owner.id, repoA.id, 10_000);
    const elsewhere = await grant('user', owner.id, repoB.id, 10_000);
    const asset = await createAsset(h, owner);
    const payer = async () => ((await upload(h, owner, asset.id, Buffer.from('x'), { repositoryId: repoA.id })).body as Content).allocation_id;
    expect(await payer()).toBe(older.id);
    await makeDefault(systemAdmin, newer.id).expect(200);
    expect(await payer()).toBe(newer.id);
    // The default on another repository does not count for this one.
    await makeDefault(systemAdmin, elsewhere.id).expect(200);
    expect(await payer()).toBe(older.id);
  });

  it("for a project's asset, is the project's allocation, not the uploader's", async () => {
    const { project, projectAdmin, projectMember } = world;
    const w = await grant('project', project.id, repoC.id, 10_000);
    await makeDefault(projectAdmin, w.id).expect(200);
    const mine = await grant('user', projectMember.id, repoA.id, 10_000);
    const asset = await createAsset(h, projectMember, { owner_type: 'project', owner_id: project.id });
    const res = await upload(h, projectMember, asset.id, Buffer.from('ours'));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ allocation_id: w.id, repository_id: repoC.id });
    expect((await getOne(projectMember, mine.id)).body.used_bytes).toBe(0);
  });
});
