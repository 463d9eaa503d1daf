import { createRepository } from '@cairn/cli';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset, setPermissions, type Asset } from '../assets/assets-fixtures.ts';
import { addMember, createProject, join, organization } from '../projects/projects-fixtures.ts';
import { bearer, type User, uuidPattern } from '../support/api.ts';
import { startHarness, type Harness, type Shape } from '../support/harness.ts';
import { attachAssets, createCollection, everyPage, getCollection, inBatches, moveCollection, setCollectionPermissions, type Collection } from './collections-fixtures.ts';

const unknown = '00000000-0000-4000-8000-000000000000';
const ids = (items: readonly { id: string }[]) => items.map((x) => x.id);
const READ = 1;
const WRITE = 2;
const LIST = 64;
const MANAGE = 256;

describe.each<Shape>(['all', 'split'])('collections over HTTP (%s)', (shape) => {
  let h: Harness;
  let owner: User;
  let other: User;
  let third: User;
  let admin: User;
  const write = () => request(h.commandApp);
  const read = () => request(h.queryApp);
  const nameOf = async (user: User) => (await h.resources.pool.query<{ name: string }>('select name from users where id = $1', [user.id])).rows[0]?.name;

  beforeAll(async () => {
    h = await startHarness(shape);
    owner = await h.createUser();
    other = await h.createUser();
    third = await h.createUser();
    admin = await h.createUser({ admin: true });
  });
  afterAll(async () => h?.close());

  describe('create', () => {
    it('answers every field of interface 2.3 with the defaults, under the owner’s root', async () => {
      const fresh = await h.createUser();
      const res = await write().post('/api/collections/').set(bearer(fresh)).send({ title: '  Ice cores ' }).expect(201);
      const created = res.body as Collection;
      expect(created).toEqual({
        id: expect.stringMatching(uuidPattern),
        title: 'Ice cores',
        description: '',
        alias: '',
        tags: [],
        type: [],
        license: '',
        parent_id: expect.stringMatching(uuidPattern),
        parent_ids: [created.parent_id],
        owner_type: 'user',
        owner_user_id: fresh.id,
        owner_project_id: null,
        owner_user_name: await nameOf(fresh),
        owner_project_name: null,
        is_root: false,
        preferred_repository_id: null,
        provenance_token: expect.stringMatching(/^\S+$/),
        effective_flags: 511,
        is_starred: false,
        access_scope: 'direct',
        created_at: expect.any(String),
        updated_at: created.created_at,
      });
      expect(new Date(created.created_at).toISOString()).toBe(created.created_at);
      expect(res.headers['location']).toBe(`/api/collections/${created.id}/`);
      expect(res.headers['x-consistency-token']).toBeTruthy();
      expect((await read().get(`/api/collections/${created.id}/`).set(bearer(fresh)).expect(200)).body).toEqual(created);
      // The root: made once, whatever the number of collections made under it.
      const root = await getCollection(h, fresh, created.parent_id as string);
      expect(root).toMatchObject({ is_root: true, parent_id: null, parent_ids: [], owner_type: 'user', owner_user_id: fresh.id, title: 'Home', effective_flags: 511 });
      const second = await createCollection(h, fresh, { title: 'Second' });
      expect(second.parent_id).toBe(root.id);
      const roots = (await everyPage<Collection>(h, fresh, `/api/collections/?owner_id=${fresh.id}`, 100)).filter((c) => c.is_root);
      expect(ids(roots)).toEqual([root.id]);
    });

    it('makes one root for concurrent first creations', async () => {
      const fresh = await h.createUser();
      const made = await Promise.all([1, 2, 3, 4].map((n) => createCollection(h, fresh, { title: `C${n}` })));
      expect(new Set(made.map((c) => c.parent_id)).size).toBe(1);
      const mine = await everyPage<Collection>(h, fresh, `/api/collections/?owner_id=${fresh.id}`, 100);
      expect(mine.filter((c) => c.is_root)).toHaveLength(1);
    });

    it('stores every field of the create body', async () => {
      const parent = await createCollection(h, owner, { title: 'Parent' });
      const created = await createCollection(h, owner, {
        title: 'Full',
        description: 'All of it',
        alias: 'full',
        tags: [' a ', 'b', 'a'],
        type: ['dataset', 'series'],
        license: 'CC-BY-4.0',
        parent_id: parent.id.toUpperCase(),
        owner_type: 'user',
        owner_id: owner.id,
      });
      expect(created).toMatchObject({
        title: 'Full',
        description: 'All of it',
        alias: 'full',
        tags: ['a', 'b'],
        type: ['dataset', 'series'],
        license: 'CC-BY-4.0',
        parent_id: parent.id,
        parent_ids: [parent.parent_id, parent.id],
        owner_user_id: owner.id,
      });
      expect(await getCollection(h, owner, created.id)).toEqual(created);
    });

    it('accepts a form-encoded body', async () => {
      const res = await write().post('/api/collections/').set(bearer(owner)).type('form').send({ title: 'From a form', alias: 'form' }).expect(201);
      expect(res.body).toMatchObject({ title: 'From a form', alias: 'form', owner_user_id: owner.id });
    });

    // The heavier checks of what the query side answers run in one shape: both shapes read the same tables.
    it.runIf(shape === 'all')('holds every field to its maximum (title 255, license 255, alias 100, each tag 100)', async () => {
      const post = (body: Record<string, unknown>) => write().post('/api/collections/').set(bearer(owner)).send({ title: 'Limits', ...body });
      const x = (n: number) => 'x'.repeat(n);
      for (const [field, max] of [
        ['title', 255],
        ['license', 255],
        ['alias', 100],
        ['description', 10_000],
      ] as const) {
        const ok = await post({ [field]: x(max) }).expect(201);
        expect(ok.body[field]).toBe(x(max));
        const tooLong = await post({ [field]: x(max + 1) }).expect(400);
        expect(tooLong.body).toMatchObject({ status: 400, code: 'validation_error', errors: { [field]: expect.any(Array) } });
      }
      for (const field of ['tags', 'type']) {
        expect((await post({ [field]: [x(100)] }).expect(201)).body[field]).toEqual([x(100)]);
        expect(Object.keys((await post({ [field]: [x(101)] }).expect(400)).body.errors)).toEqual([`${field}.0`]);
        expect(Object.keys((await post({ [field]: ['a', ''] }).expect(400)).body.errors)).toEqual([`${field}.1`]);
        await post({ [field]: Array.from({ length: 50 }, (_, i) => `t${i}`) }).expect(201);
        await post({ [field]: Array.from({ length: 51 }, (_, i) => `t${i}`) }).expect(400);
        await post({ [field]: 'not a list' }).expect(400);
      }
      // Required and well-formed.
      expect((await write().post('/api/collections/').set(bearer(owner)).send({}).expect(400)).body.errors).toHaveProperty('title');
      expect((await post({ title: '   ' }).expect(400)).body.errors).toHaveProperty('title');
      expect((await post({ owner_type: 'organization' }).expect(400)).body.errors).toHaveProperty('owner_type');
      expect((await post({ parent_id: 'not-a-uuid' }).expect(400)).body.errors).toHaveProperty('parent_id');
      expect((await post({ owner_id: 'nope' }).expect(400)).body.errors).toHaveProperty('owner_id');
      expect((await post({ preferred_repository_id: 'nope' }).expect(400)).body.errors).toHaveProperty('preferred_repository_id');
      // A repository that exists, and only such (docs/storage.md): 404 naming the field (DECISIONS.md 1).
      expect((await post({ preferred_repository_id: '00000000-0000-4000-8000-000000000000' }).expect(404)).body.errors).toEqual({ preferred_repository_id: ['Not found.'] });
      const { id: repositoryId } = await createRepository(h.resources, `preferred-${Date.now()}`, { kind: 'fs', path: '/tmp/cairn-preferred' });
      const preferring = (await post({ preferred_repository_id: repositoryId }).expect(201)).body as Collection;
      expect(preferring.preferred_repository_id).toBe(repositoryId);
      await write().patch(`/api/collections/${preferring.id}/`).set(bearer(owner)).send({ preferred_repository_id: '00000000-0000-4000-8000-000000000000' }).expect(404);
      await write().patch(`/api/collections/${preferring.id}/`).set(bearer(owner)).send({ preferred_repository_id: null }).expect(200);
      await write().post('/api/collections/').send({ title: 'Anonymous' }).expect(401);
    });

    it('refuses parents the caller may not use and owners the caller may not name (404 naming the field, hidden like unknown)', async () => {
      const others = await createCollection(h, other, { title: 'Not yours' });
      const hidden = await write().post('/api/collections/').set(bearer(owner)).send({ title: 'X', parent_id: others.id }).expect(404);
      const missing = await write().post('/api/collections/').set(bearer(owner)).send({ title: 'X', parent_id: unknown }).expect(404);
      expect(missing.body).toEqual({ status: 404, code: 'not_found', detail: expect.any(String), errors: { parent_id: ['Not found.'] } });
      expect(hidden.body).toEqual(missing.body);
      // Visible but in another owner's tree.
      await setCollectionPermissions(h, other, others.id, [{ subject_type: 'user', subject_id: owner.id, flags: READ | WRITE | LIST }]);
      expect((await write().post('/api/collections/').set(bearer(owner)).send({ title: 'X', parent_id: others.id }).expect(400)).body.errors).toHaveProperty('parent_id');
      // Owners: another user, an unknown project: the same 404 (a project one is not in: below).
      const otherUser = await write().post('/api/collections/').set(bearer(owner)).send({ title: 'X', owner_id: other.id }).expect(404);
      const unknownProject = await write().post('/api/collections/').set(bearer(owner)).send({ title: 'X', owner_type: 'project', owner_id: unknown }).expect(404);
      expect(unknownProject.body).toEqual({ status: 404, code: 'not_found', detail: expect.any(String), errors: { owner_id: ['Not found.'] } });
      expect(otherUser.body).toEqual(unknownProject.body);
      expect((await write().post('/api/collections/').set(bearer(owner)).send({ title: 'X', owner_type: 'project' }).expect(400)).body.errors).toHaveProperty('owner_id');
      // A system administrator creates for anyone.
      const forOther = await createCollection(h, admin, { title: 'Given', owner_id: other.id });
      expect(forOther).toMatchObject({ owner_user_id: other.id, parent_id: others.parent_id, access_scope: 'admin', effective_flags: 511 });
      expect((await getCollection(h, other, forOther.id)).effective_flags).toBe(511);
    });
  });

  describe('project-owned collections', () => {
    let project: Awaited<ReturnType<typeof createProject>>;
    let projectAdmin: User;
    let member: User;
    let viewer: User;

    beforeAll(async () => {
      const organizationId = await organization(h, `Collections Institute ${shape}`);
      [projectAdmin, member, viewer] = [await h.createUser(), await h.createUser(), await h.createUser()];
      await join(h, organizationId, projectAdmin);
      project = await createProject(h, projectAdmin, organizationId, `Moraine ${shape}`);
      await addMember(h, projectAdmin, project.id, member, 'member');
      await addMember(h, projectAdmin, project.id, viewer, 'viewer');
    });

    it('go under the project’s root collection by default, with the project’s name resolved', async () => {
      const root = await getCollection(h, projectAdmin, project.root_collection_id);
      expect(root).toMatchObject({ is_root: true, parent_id: null, parent_ids: [], owner_type: 'project', owner_project_id: project.id, owner_user_id: null, owner_project_name: project.name });
      const created = await createCollection(h, member, { title: 'Field season', owner_type: 'project', owner_id: project.id });
      expect(created).toMatchObject({
        owner_type: 'project',
        owner_project_id: project.id,
        owner_project_name: project.name,
        owner_user_id: null,
        owner_user_name: null,
        parent_id: project.root_collection_id,
        parent_ids: [project.root_collection_id],
        effective_flags: 127,
        access_scope: 'project',
      });
      expect((await getCollection(h, projectAdmin, created.id)).effective_flags).toBe(511);
      expect((await getCollection(h, viewer, created.id)).effective_flags).toBe(85);
      await read().get(`/api/collections/${created.id}/`).set(bearer(other)).expect(404);
      const nested = await createCollection(h, projectAdmin, { title: 'Nested', owner_type: 'project', owner_id: project.id, parent_id: created.id });
      expect(nested.parent_ids).toEqual([project.root_collection_id, created.id]);
      // Viewers may not create for the project; outsiders cannot tell it from an unknown one.
      expect((await write().post('/api/collections/').set(bearer(viewer)).send({ title: 'X', owner_type: 'project', owner_id: project.id }).expect(403)).body.code).toBe('permission_denied');
      await write().post('/api/collections/').set(bearer(other)).send({ title: 'X', owner_type: 'project', owner_id: project.id }).expect(404);
      // A project collection cannot go under a user's, nor a user's under the project's.
      const mine = await createCollection(h, member, { title: 'Mine' });
      await write().post('/api/collections/').set(bearer(member)).send({ title: 'X', owner_type: 'project', owner_id: project.id, parent_id: mine.id }).expect(400);
      await write().post('/api/collections/').set(bearer(member)).send({ title: 'X', parent_id: created.id }).expect(400);
      await write().patch(`/api/collections/${mine.id}/`).set(bearer(member)).send({ parent_id: created.id }).expect(400);
      // The project's root cannot be moved or deleted.
      expect((await write().delete(`/api/collections/${project.root_collection_id}/`).set(bearer(projectAdmin)).expect(409)).body.code).toBe('root_collection');
      expect((await write().patch(`/api/collections/${project.root_collection_id}/`).set(bearer(projectAdmin)).send({ parent_id: created.id }).expect(409)).body.code).toBe('root_collection');
    });
  });

  describe('change', () => {
    it('patches every field, PATCH of nothing new changes nothing', async () => {
      const c = await createCollection(h, owner, { title: 'Before', tags: ['a'] });
      const patched = (
        await write()
          .patch(`/api/collections/${c.id}/`)
          .set(bearer(owner))
          .send({ title: 'After', description: 'd', alias: 'al', tags: ['b', 'c'], type: ['t'], license: 'MIT' })
          .expect(200)
      ).body as Collection;
      expect(patched).toMatchObject({ title: 'After', description: 'd', alias: 'al', tags: ['b', 'c'], type: ['t'], license: 'MIT', parent_id: c.parent_id });
      expect(patched.updated_at >= c.updated_at).toBe(true);
      expect(await getCollection(h, owner, c.id)).toEqual(patched);
      const same = (await write().patch(`/api/collections/${c.id}/`).set(bearer(owner)).send({ title: 'After', tags: ['b', 'c'] }).expect(200)).body as Collection;
      expect(same).toEqual(patched);
      // Limits on PATCH too.
      await write().patch(`/api/collections/${c.id}/`).set(bearer(owner)).send({ title: '' }).expect(400);
      await write().patch(`/api/collections/${c.id}/`).set(bearer(owner)).send({ alias: 'x'.repeat(101) }).expect(400);
      await write().patch(`/api/collections/${c.id}/`).set(bearer(owner)).send({ tags: ['x'.repeat(101)] }).expect(400);
      await write().patch(`/api/collections/${c.id}/`).set(bearer(owner)).send({ parent_id: null }).expect(400);
      await write().patch(`/api/collections/${unknown}/`).set(bearer(owner)).send({ title: 'x' }).expect(404);
      await write().patch('/api/collections/not-a-uuid/').set(bearer(owner)).send({ title: 'x' }).expect(404);
    });

    it('changes the provenance token on every change of the collection, and only then', async () => {
      const parent = await createCollection(h, owner, { title: 'Token parent' });
      const c = await createCollection(h, owner, { title: 'Tokens' });
      const tokens = [c.provenance_token];
      const after = async (res: request.Response) => {
        const token = (await getCollection(h, owner, c.id)).provenance_token;
        if (res.body?.provenance_token) expect(res.body.provenance_token).toBe(token);
        return token;
      };
      tokens.push(await after(await write().patch(`/api/collections/${c.id}/`).set(bearer(owner)).send({ title: 'Tokens 2' }).expect(200)));
      tokens.push(await after(await write().patch(`/api/collections/${c.id}/`).set(bearer(owner)).send({ tags: ['t'] }).expect(200)));
      tokens.push(await after(await write().patch(`/api/collections/${c.id}/`).set(bearer(owner)).send({ parent_id: parent.id }).expect(200)));
      tokens.push(await after(await write().put(`/api/collections/${c.id}/permissions/`).set(bearer(owner)).send({ permissions: [{ subject_type: 'public', flags: READ }] }).expect(200)));
      expect(new Set(tokens).size).toBe(tokens.length);
      // Nothing changed: the same token.
      const unchanged = await write().patch(`/api/collections/${c.id}/`).set(bearer(owner)).send({ title: 'Tokens 2' }).expect(200);
      expect(unchanged.body.provenance_token).toBe(tokens.at(-1));
      await write().patch(`/api/collections/${c.id}/`).set(bearer(owner)).send({ parent_id: parent.id }).expect(200);
      await write().put(`/api/collections/${c.id}/permissions/`).set(bearer(owner)).send({ permissions: [{ subject_type: 'public', flags: READ }] }).expect(200);
      expect((await getCollection(h, owner, c.id)).provenance_token).toBe(tokens.at(-1));
      // Others' tokens are their own.
      expect(tokens).not.toContain(parent.provenance_token);
    });

    it('honours If-Match: 412 with an old token, 200 with the current one, quoted or weak forms too', async () => {
      const c = await createCollection(h, owner, { title: 'If-Match' });
      const old = c.provenance_token;
      const patch = (ifMatch: string, body: Record<string, unknown>) => write().patch(`/api/collections/${c.id}/`).set(bearer(owner)).set('If-Match', ifMatch).send(body);
      const first = (await patch(old, { title: 'One' }).expect(200)).body as Collection;
      const stale = await patch(old, { title: 'Two' }).expect(412);
      expect(stale.body).toMatchObject({ status: 412, code: 'provenance_mismatch' });
      await patch(`"${old}"`, { title: 'Two' }).expect(412);
      await patch('"something else"', { title: 'Two' }).expect(412);
      // A stale token refuses a move as well, and one that would change nothing.
      const parent = await createCollection(h, owner, { title: 'If-Match parent' });
      await patch(old, { parent_id: parent.id }).expect(412);
      await patch(old, { title: 'One' }).expect(412);
      expect((await getCollection(h, owner, c.id)).title).toBe('One');
      const second = (await patch(`"${first.provenance_token}"`, { title: 'Two' }).expect(200)).body as Collection;
      const third = (await patch(`W/"${second.provenance_token}"`, { title: 'Three' }).expect(200)).body as Collection;
      const moved = (await patch(third.provenance_token, { parent_id: parent.id }).expect(200)).body as Collection;
      expect(moved.parent_id).toBe(parent.id);
      // `*` and no header: no precondition.
      await patch('*', { title: 'Four' }).expect(200);
      await write().patch(`/api/collections/${c.id}/`).set(bearer(owner)).send({ title: 'Five' }).expect(200);
    });
  });

  describe('the tree', () => {
    it('moves rewrite parent_ids of the whole subtree; cycles are 409; the same parent changes nothing', async () => {
      const a = await createCollection(h, owner, { title: 'A' });
      const root = a.parent_id as string;
      const b = await createCollection(h, owner, { title: 'B', parent_id: a.id });
      const c = await createCollection(h, owner, { title: 'C', parent_id: b.id });
      const d = await createCollection(h, owner, { title: 'D', parent_id: c.id });
      const e = await createCollection(h, owner, { title: 'E', parent_id: b.id });
      const x = await createCollection(h, owner, { title: 'X' });
      expect(d.parent_ids).toEqual([root, a.id, b.id, c.id]);
      for (const [id, to] of [
        [a.id, a.id],
        [a.id, b.id],
        [a.id, d.id],
        [b.id, e.id],
      ] as const) {
        const res = await write().patch(`/api/collections/${id}/`).set(bearer(owner)).send({ parent_id: to }).expect(409);
        expect(res.body).toMatchObject({ status: 409, code: 'collection_cycle' });
      }
      const moved = await moveCollection(h, owner, b.id, x.id);
      expect(moved).toMatchObject({ parent_id: x.id, parent_ids: [root, x.id] });
      const chains = Object.fromEntries(await Promise.all([b, c, d, e, a, x].map(async (k) => [k.title, (await getCollection(h, owner, k.id)).parent_ids])));
      expect(chains).toEqual({ B: [root, x.id], C: [root, x.id, b.id], D: [root, x.id, b.id, c.id], E: [root, x.id, b.id], A: [root], X: [root] });
      // Up again, to the root.
      await moveCollection(h, owner, c.id, root);
      expect((await getCollection(h, owner, d.id)).parent_ids).toEqual([root, c.id]);
      // Now A may go under D (no longer below A).
      await moveCollection(h, owner, a.id, d.id);
      expect((await getCollection(h, owner, a.id)).parent_ids).toEqual([root, c.id, d.id]);
      // The same parent: a no-op with the same token.
      const same = await write().patch(`/api/collections/${a.id}/`).set(bearer(owner)).send({ parent_id: d.id }).expect(200);
      expect(same.body.provenance_token).toBe((await getCollection(h, owner, a.id)).provenance_token);
      // A move with other fields is 400; to an unknown or hidden parent 404 alike, naming parent_id.
      expect((await write().patch(`/api/collections/${a.id}/`).set(bearer(owner)).send({ parent_id: x.id, title: 'A2' }).expect(400)).body.errors).toHaveProperty('parent_id');
      const others = await createCollection(h, other, { title: 'Theirs' });
      const hidden = await write().patch(`/api/collections/${a.id}/`).set(bearer(owner)).send({ parent_id: others.id }).expect(404);
      const missing = await write().patch(`/api/collections/${a.id}/`).set(bearer(owner)).send({ parent_id: unknown }).expect(404);
      expect(missing.body).toEqual({ status: 404, code: 'not_found', detail: expect.any(String), errors: { parent_id: ['Not found.'] } });
      expect(hidden.body).toEqual(missing.body);
      // The root never moves.
      expect((await write().patch(`/api/collections/${root}/`).set(bearer(owner)).send({ parent_id: x.id }).expect(409)).body.code).toBe('root_collection');
    });

    it('a move needs MANAGE on the collection and LIST and WRITE_METADATA on the new parent', async () => {
      const c = await createCollection(h, owner, { title: 'Movable' });
      const target = await createCollection(h, owner, { title: 'Target' });
      const move = (who: User) => write().patch(`/api/collections/${c.id}/`).set(bearer(who)).send({ parent_id: target.id });
      await setCollectionPermissions(h, owner, c.id, [{ subject_type: 'user', subject_id: other.id, flags: READ | WRITE }]);
      await setCollectionPermissions(h, owner, target.id, [{ subject_type: 'user', subject_id: other.id, flags: READ | WRITE | LIST }]);
      expect((await move(other).expect(403)).body.code).toBe('permission_denied');
      // A title change needs only WRITE_METADATA.
      await write().patch(`/api/collections/${c.id}/`).set(bearer(other)).send({ title: 'Renamed by other' }).expect(200);
      await setCollectionPermissions(h, owner, c.id, [{ subject_type: 'user', subject_id: other.id, flags: READ | MANAGE }]);
      for (const flags of [READ, READ | LIST, READ | WRITE]) {
        await setCollectionPermissions(h, owner, target.id, [{ subject_type: 'user', subject_id: other.id, flags }]);
        expect((await move(other).expect(403)).body.code).toBe('permission_denied');
      }
      await setCollectionPermissions(h, owner, target.id, [{ subject_type: 'user', subject_id: other.id, flags: READ | WRITE | LIST }]);
      // `other` does not see the owner's root above the target: it is not named (docs/collections.md).
      expect((await move(other).expect(200)).body).toMatchObject({ parent_id: target.id, parent_ids: [target.id] });
      expect((await getCollection(h, owner, c.id)).parent_ids).toEqual([target.parent_id, target.id]);
      // A system administrator moves anything within its owner's tree.
      await write().patch(`/api/collections/${c.id}/`).set(bearer(admin)).send({ parent_id: c.parent_ids[0] }).expect(200);
    });

    it('two racing moves that would make a cycle: exactly one lands, the other is 409', async () => {
      for (let round = 0; round < 6; round += 1) {
        const a = await createCollection(h, owner, { title: `Race A${round}` });
        const b = await createCollection(h, owner, { title: `Race B${round}` });
        const [ab, ba] = await Promise.all([
          write().patch(`/api/collections/${a.id}/`).set(bearer(owner)).send({ parent_id: b.id }),
          write().patch(`/api/collections/${b.id}/`).set(bearer(owner)).send({ parent_id: a.id }),
        ]);
        expect([ab?.status, ba?.status].sort()).toEqual([200, 409]);
        expect((ab?.status === 409 ? ab : ba)?.body.code).toBe('collection_cycle');
        const [ra, rb] = [await getCollection(h, owner, a.id), await getCollection(h, owner, b.id)];
        if (ab?.status === 200) expect([ra.parent_ids, rb.parent_ids]).toEqual([[a.parent_id, b.id], [a.parent_id]]);
        else expect([ra.parent_ids, rb.parent_ids]).toEqual([[a.parent_id], [a.parent_id, a.id]]);
      }
    });

    it('a deletion racing with a move or a create into its subtree leaves nothing under a deleted collection', async () => {
      for (let round = 0; round < 6; round += 1) {
        const doomed = await createCollection(h, owner, { title: `Doomed ${round}` });
        const inside = await createCollection(h, owner, { title: `Inside ${round}`, parent_id: doomed.id });
        const outside = await createCollection(h, owner, { title: `Outside ${round}` });
        const late =
          round % 2 === 0
            ? write().patch(`/api/collections/${outside.id}/`).set(bearer(owner)).send({ parent_id: inside.id })
            : write().post('/api/collections/').set(bearer(owner)).send({ title: `Late ${round}`, parent_id: inside.id });
        const [deleted, landed] = await Promise.all([write().delete(`/api/collections/${doomed.id}/?recursive=true`).set(bearer(owner)), late]);
        expect(deleted.status).toBe(204);
        // Either it landed first (and went with the subtree) or it found the parent gone (404 on parent_id).
        expect([200, 201, 404]).toContain(landed.status);
        if (landed.status === 201) await read().get(`/api/collections/${(landed.body as Collection).id}/`).set(bearer(owner)).expect(404);
        if (round % 2 === 0) {
          const now = await read().get(`/api/collections/${outside.id}/`).set(bearer(owner));
          if (landed.status === 200) expect(now.status).toBe(404);
          else expect([now.status, now.body.parent_ids]).toEqual([200, [outside.parent_id]]);
        }
      }
      // Nothing of this user's is left under a deleted collection.
      const left = await everyPage<Collection>(h, owner, `/api/collections/?owner_id=${owner.id}`, 1000);
      const alive = new Set(ids(left));
      expect(left.filter((c) => c.parent_id !== null && !alive.has(c.parent_id)).map((c) => c.title)).toEqual([]);
    });

    it.runIf(shape === 'all')('many concurrent moves (more than a pool of connections) all land', async () => {
      const target = await createCollection(h, owner, { title: 'Crowded target' });
      const items = await inBatches(Array.from({ length: 24 }, (_, i) => i), 12, (i) => createCollection(h, owner, { title: `Crowd ${i}` }));
      const moves = await Promise.all(items.map((c) => write().patch(`/api/collections/${c.id}/`).set(bearer(owner)).send({ parent_id: target.id })));
      expect(moves.map((r) => r.status)).toEqual(items.map(() => 200));
      const children = await everyPage<Collection>(h, owner, `/api/collections/?parent_id=${target.id}`, 100);
      expect(new Set(ids(children))).toEqual(new Set(ids(items)));
    }, 30_000);
  });

  describe('delete', () => {
    it('deletes an empty collection; a non-empty one only recursively; never a root', async () => {
      const empty = await createCollection(h, owner, { title: 'Empty' });
      await write().delete(`/api/collections/${empty.id}/`).set(bearer(owner)).expect(204);
      await read().get(`/api/collections/${empty.id}/`).set(bearer(owner)).expect(404);
      await write().delete(`/api/collections/${empty.id}/`).set(bearer(owner)).expect(404);
      expect((await write().delete(`/api/collections/${empty.parent_id}/`).set(bearer(owner)).expect(409)).body.code).toBe('root_collection');
      expect((await write().delete(`/api/collections/${empty.parent_id}/?recursive=true`).set(bearer(owner)).expect(409)).body.code).toBe('root_collection');
      // Holding a sub-collection, or only an asset.
      const withChild = await createCollection(h, owner, { title: 'With child' });
      await createCollection(h, owner, { title: 'Child', parent_id: withChild.id });
      const withAsset = await createCollection(h, owner, { title: 'With asset' });
      await createAsset(h, owner, { title: 'Held', collection_id: withAsset.id });
      for (const c of [withChild, withAsset]) {
        expect((await write().delete(`/api/collections/${c.id}/`).set(bearer(owner)).expect(409)).body).toMatchObject({ status: 409, code: 'collection_not_empty' });
        expect((await write().delete(`/api/collections/${c.id}/?recursive=false`).set(bearer(owner)).expect(409)).body.code).toBe('collection_not_empty');
      }
      await write().delete(`/api/collections/${withAsset.id}/?recursive=maybe`).set(bearer(owner)).expect(400);
      await write().delete(`/api/collections/${withAsset.id}/?recursive=true`).set(bearer(owner)).expect(204);
      await write().delete(`/api/collections/${unknown}/`).set(bearer(owner)).expect(404);
    });

    it('a recursive deletion deletes the subtree and detaches (never deletes) its assets', async () => {
      const keep = await createCollection(h, owner, { title: 'Kept' });
      const top = await createCollection(h, owner, { title: 'Doomed' });
      const mid = await createCollection(h, owner, { title: 'Doomed mid', parent_id: top.id });
      const leaf = await createCollection(h, owner, { title: 'Doomed leaf', parent_id: mid.id });
      const sibling = await createCollection(h, owner, { title: 'Doomed sibling', parent_id: top.id });
      await setCollectionPermissions(h, owner, top.id, [{ subject_type: 'user', subject_id: other.id, flags: READ | LIST }]);
      const inTop = await createAsset(h, owner, { title: 'In top', collection_id: top.id });
      const inLeaf = await createAsset(h, owner, { title: 'In leaf', collection_id: leaf.id });
      const inBoth = await createAsset(h, owner, { title: 'In leaf and kept', collection_id: leaf.id });
      await attachAssets(h, owner, keep.id, [inBoth.id]);
      await attachAssets(h, owner, sibling.id, [inTop.id]);
      // Another user's asset, attached by its owner (who may write the sibling).
      await setCollectionPermissions(h, owner, sibling.id, [{ subject_type: 'user', subject_id: third.id, flags: READ | WRITE }]);
      const theirs = await createAsset(h, third, { title: 'Third’s' });
      await attachAssets(h, third, sibling.id, [theirs.id]);
      // Before: `other` reads them all through the top's entry.
      for (const a of [inTop, inLeaf, inBoth]) expect((await read().get(`/api/assets/${a.id}/`).set(bearer(other)).expect(200)).body.access_scope).toBe('collection');

      await write().delete(`/api/collections/${top.id}/?recursive=true`).set(bearer(owner)).expect(204);
      for (const c of [top, mid, leaf, sibling]) await read().get(`/api/collections/${c.id}/`).set(bearer(owner)).expect(404);
      const after = async (a: Asset, who: User = owner) => (await read().get(`/api/assets/${a.id}/`).set(bearer(who)).expect(200)).body as Asset;
      expect((await after(inTop)).collection_ids).toEqual([]);
      expect((await after(inLeaf)).collection_ids).toEqual([]);
      expect((await after(inBoth)).collection_ids).toEqual([keep.id]);
      expect((await after(theirs, third)).collection_ids).toEqual([]);
      // What the deleted collections gave is gone.
      for (const a of [inTop, inLeaf, inBoth]) await read().get(`/api/assets/${a.id}/`).set(bearer(other)).expect(404);
      expect(ids(await everyPage(h, other, '/api/assets/', 100))).not.toContain(inTop.id);
      // The kept collection still lists its asset, and the asset listing by the deleted one is empty.
      expect(ids(await everyPage(h, owner, `/api/collections/${keep.id}/assets/`, 100))).toEqual([inBoth.id]);
      expect(await everyPage(h, owner, `/api/assets/?collection_id=${leaf.id}`, 100)).toEqual([]);
      // The detached assets can go into new collections.
      const fresh = await createCollection(h, owner, { title: 'Fresh' });
      await attachAssets(h, owner, fresh.id, [inLeaf.id]);
      expect((await after(inLeaf)).collection_ids).toEqual([fresh.id]);
    });
  });

  describe('assets in collections', () => {
    it('attaches all or nothing and detaches', async () => {
      const c = await createCollection(h, owner, { title: 'Shelf' });
      const d = await createCollection(h, owner, { title: 'Other shelf' });
      const [a1, a2] = [await createAsset(h, owner, { title: 'One' }), await createAsset(h, owner, { title: 'Two' })];
      const hiddenAsset = await createAsset(h, other, { title: 'Hidden' });
      const attach = (body: object, who: User = owner, id = c.id) => write().post(`/api/collections/${id}/assets/`).set(bearer(who)).send(body);
      // One hidden or unknown asset: 404, and nothing attached.
      const hidden = await attach({ asset_ids: [a1.id, hiddenAsset.id] }).expect(404);
      const missing = await attach({ asset_ids: [a1.id, unknown] }).expect(404);
      // The body names the place of each asset not found, the same for hidden and unknown.
      expect(missing.body).toEqual({ status: 404, code: 'not_found', detail: expect.any(String), errors: { 'asset_ids.1': ['Not found.'] } });
      expect(hidden.body).toEqual(missing.body);
      expect(hidden.body.code).toBe(missing.body.code);
      expect((await getAsset(a1)).collection_ids).toEqual([]);
      expect(await everyPage(h, owner, `/api/collections/${c.id}/assets/`, 100)).toEqual([]);
      // Malformed bodies.
      await attach({ asset_ids: [] }).expect(400);
      await attach({ asset_ids: ['nope'] }).expect(400);
      await attach({}).expect(400);
      await attach({ asset_ids: Array.from({ length: 1001 }, () => unknown) }).expect(400);
      // All of them, once each, twice changes nothing; an asset in several collections.
      await attach({ asset_ids: [a1.id, a2.id, a1.id.toUpperCase()] }).expect(204);
      await attach({ asset_ids: [a1.id] }).expect(204);
      await attach({ asset_ids: [a1.id] }, owner, d.id).expect(204);
      expect((await getAsset(a1)).collection_ids).toEqual([c.id, d.id]);
      expect((await getAsset(a2)).collection_ids).toEqual([c.id]);
      expect(new Set(ids(await everyPage(h, owner, `/api/collections/${c.id}/assets/`, 100)))).toEqual(new Set([a1.id, a2.id]));
      expect(ids(await everyPage(h, owner, `/api/assets/?collection_id=${d.id}`, 100))).toEqual([a1.id]);
      // Locked assets may be placed and taken out.
      await write().post(`/api/assets/${a2.id}/lock/`).set(bearer(owner)).send({ locked: true }).expect(200);
      await attach({ asset_ids: [a2.id] }, owner, d.id).expect(204);
      // Detach.
      await write().delete(`/api/collections/${c.id}/assets/${a1.id}/`).set(bearer(owner)).expect(204);
      expect((await getAsset(a1)).collection_ids).toEqual([d.id]);
      await write().delete(`/api/collections/${c.id}/assets/${a1.id}/`).set(bearer(owner)).expect(404);
      await write().delete(`/api/collections/${c.id}/assets/${a2.id}/`).set(bearer(owner)).expect(204);
      await write().delete(`/api/collections/${c.id}/assets/${hiddenAsset.id}/`).set(bearer(owner)).expect(404);
      await write().delete(`/api/collections/${c.id}/assets/${unknown}/`).set(bearer(owner)).expect(404);
      expect(await everyPage(h, owner, `/api/collections/${c.id}/assets/`, 100)).toEqual([]);
      // Who may: WRITE_METADATA on the collection, READ_METADATA on each asset.
      await setCollectionPermissions(h, owner, c.id, [{ subject_type: 'user', subject_id: other.id, flags: READ | LIST }]);
      expect((await attach({ asset_ids: [hiddenAsset.id] }, other).expect(403)).body.code).toBe('permission_denied');
      await setCollectionPermissions(h, owner, c.id, [{ subject_type: 'user', subject_id: other.id, flags: READ | LIST | WRITE }]);
      await attach({ asset_ids: [a1.id] }, other).expect(404);
      await attach({ asset_ids: [hiddenAsset.id] }, other).expect(204);
      await attach({ asset_ids: [a1.id] }, third).expect(404);
      // The asset create body puts it in a collection too.
      const created = await createAsset(h, owner, { title: 'Born inside', collection_id: c.id });
      expect(created.collection_ids).toEqual([c.id]);
      const hiddenCollection = await write().post('/api/assets/').set(bearer(third)).send({ title: 'Nope', collection_id: c.id }).expect(404);
      const unknownCollection = await write().post('/api/assets/').set(bearer(third)).send({ title: 'Nope', collection_id: unknown }).expect(404);
      expect(unknownCollection.body).toEqual({ status: 404, code: 'not_found', detail: expect.any(String), errors: { collection_id: ['Not found.'] } });
      expect(hiddenCollection.body).toEqual(unknownCollection.body);
    });

    async function getAsset(asset: Asset, who: User = owner): Promise<Asset> {
      return (await read().get(`/api/assets/${asset.id}/`).set(bearer(who)).expect(200)).body as Asset;
    }

    it.runIf(shape === 'all')('lists a collection’s assets in every ordering, paged by cursor without gaps or repeats', async () => {
      const c = await createCollection(h, owner, { title: 'Ordered' });
      await setCollectionPermissions(h, owner, c.id, [
        { subject_type: 'user', subject_id: other.id, flags: READ | WRITE | LIST },
        { subject_type: 'user', subject_id: third.id, flags: READ | WRITE | LIST },
      ]);
      const titles = ['delta', 'alpha', 'charlie', 'alpha', 'bravo', 'echo', 'bravo', 'delta'];
      const made: Asset[] = [];
      // In twos, so that some share a millisecond and the order falls back to the id.
      for (let i = 0; i < 12; i += 2) {
        const pair = await Promise.all(
          [i, i + 1].map(async (k) => {
            const creator = [owner, other, third][k % 3] as User;
            const asset = await createAsset(h, creator, { title: titles[k % titles.length], collection_id: c.id });
            if (creator !== owner) await setPermissions(h, creator, asset.id, [{ subject_type: 'user', subject_id: owner.id, flags: READ }]);
            return asset;
          }),
        );
        made.push(...pair);
      }
      // Updates in another order than creation, a new title, a lock: the listing's sort keys follow each.
      for (const asset of [made[9], made[3]] as Asset[]) await write().patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ description: 'touched' }).expect(200);
      await write().patch(`/api/assets/${(made[0] as Asset).id}/`).set(bearer(owner)).send({ title: 'zulu' }).expect(200);
      await write().post(`/api/assets/${(made[6] as Asset).id}/lock/`).set(bearer(owner)).send({ locked: true, reason: 'sorted by its lock time' }).expect(200);
      // Attached after it was made (its sort keys come from its row), and one deleted (gone from the listing).
      const attachedLater = await createAsset(h, owner, { title: 'bravo' });
      await attachAssets(h, owner, c.id, [attachedLater.id]);
      made.push(attachedLater);
      const deleted = await createAsset(h, owner, { title: 'alpha', collection_id: c.id });
      await write().delete(`/api/assets/${deleted.id}/`).set(bearer(owner)).expect(204);
      // One the owner may not see (its creator attached it without a grant): never listed to the owner.
      const unseen = await createAsset(h, other, { title: 'alpha', collection_id: c.id });
      const current = new Map<string, Asset>();
      for (const a of await everyPage(h, admin, `/api/collections/${c.id}/assets/`, 1000)) current.set(a.id, a);
      expect(current.size).toBe(made.length + 1);
      const visible = [...current.values()].filter((a) => a.id !== unseen.id);

      const keyOf: Record<string, (a: Asset) => string> = {
        created_at: (a) => a.created_at,
        updated_at: (a) => a.updated_at,
        title: (a) => a.title,
        creator: (a) => a.created_by ?? '',
      };
      const expectedOrder = (assets: Asset[], ordering: string) => {
        const desc = ordering.startsWith('-');
        const key = keyOf[desc ? ordering.slice(1) : ordering] as (a: Asset) => string;
        return [...assets].sort((x, y) => {
          const [kx, ky] = [key(x), key(y)];
          // Descending is ascending reversed, ties by id included.
          const ascending = (kx < ky ? -1 : kx > ky ? 1 : 0) || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
          return desc ? -ascending : ascending;
        });
      };
      for (const ordering of ['created_at', '-created_at', 'updated_at', '-updated_at', 'title', '-title', 'creator', '-creator']) {
        const want = ids(expectedOrder(visible, ordering));
        for (const limit of ordering.endsWith('title') ? [1, 4, 100] : [3, 100]) expect(ids(await everyPage(h, owner, `/api/collections/${c.id}/assets/?ordering=${encodeURIComponent(ordering)}`, limit)), `${ordering} ${limit}`).toEqual(want);
      }
      // The default is -created_at.
      const first = await read().get(`/api/collections/${c.id}/assets/`).set(bearer(owner)).expect(200);
      expect(ids(first.body)).toEqual(ids(expectedOrder(visible, '-created_at')));
      expect(first.headers).toMatchObject({ 'x-page-limit': '100', 'x-has-more': 'false' });
      expect(first.headers['x-next-cursor']).toBeUndefined();
      // The collection's entry lets `other` read every asset in it, the unseen one too.
      expect(new Set(ids(await everyPage(h, other, `/api/collections/${c.id}/assets/`, 3)))).toEqual(new Set(current.keys()));
      // Anything else is 400.
      for (const ordering of ['name', 'created', '--title', '+title', 'Title', '-', ''])
        expect((await read().get(`/api/collections/${c.id}/assets/?ordering=${encodeURIComponent(ordering)}`).set(bearer(owner))).status, ordering).toBe(400);
    });

    it.runIf(shape === 'all')('clamps the limit and refuses cursors it did not issue for this ordering', async () => {
      const c = await createCollection(h, owner, { title: 'Paged' });
      await inBatches([1, 2, 3, 4, 5], 5, (n) => createAsset(h, owner, { title: `p${n}`, collection_id: c.id }));
      const page = (query: string) => read().get(`/api/collections/${c.id}/assets/?${query}`).set(bearer(owner));
      for (const [limit, clamped, count] of [
        ['0', '1', 1],
        ['-5', '1', 1],
        ['1', '1', 1],
        ['4', '4', 4],
        ['5', '5', 5],
        ['1000', '1000', 5],
        ['1001', '1000', 5],
        ['99999', '1000', 5],
      ] as const) {
        const res = await page(`limit=${limit}`).expect(200);
        expect([res.headers['x-page-limit'], res.body.length, res.headers['x-has-more']], limit).toEqual([clamped, count, String(count < 5)]);
      }
      for (const bad of ['x', '1.5', '']) expect((await page(`limit=${bad}`)).status, bad).toBe(400);
      const cursor = (await page('limit=2&ordering=title').expect(200)).headers['x-next-cursor'] as string;
      expect(cursor).toBeTruthy();
      await page(`limit=2&ordering=title&cursor=${encodeURIComponent(cursor)}`).expect(200);
      // Another ordering's cursor, a tampered one, another listing's and garbage: 400.
      expect((await page(`limit=2&ordering=-title&cursor=${encodeURIComponent(cursor)}`).expect(400)).body.code).toBe('invalid_cursor');
      await page(`limit=2&cursor=${encodeURIComponent(cursor)}`).expect(400);
      // The signature's last but one character changed (to one it is not: 1 cursor in 64 held an `A` there, and was sent back as it was).
      const tampered = cursor.slice(0, -2) + (cursor.at(-2) === 'A' ? 'B' : 'A') + cursor.slice(-1);
      await page(`limit=2&ordering=title&cursor=${encodeURIComponent(tampered)}`).expect(400);
      // A position of one's own under the signature of another: 400.
      const forged = `v1.${Buffer.from(JSON.stringify(['k', 'collection-assets:title', 'a', unknown])).toString('base64url')}.${cursor.split('.')[2]}`;
      await page(`ordering=title&cursor=${encodeURIComponent(forged)}`).expect(400);
      const listingCursor = (await read().get('/api/collections/?limit=1').set(bearer(owner)).expect(200)).headers['x-next-cursor'] as string;
      await page(`cursor=${encodeURIComponent(listingCursor)}`).expect(400);
      await page('cursor=garbage').expect(400);
    });

    it('gates the listing on LIST: 403 without it, 404 when hidden, 401 anonymous', async () => {
      const c = await createCollection(h, owner, { title: 'Gated' });
      await createAsset(h, owner, { title: 'Gated asset', collection_id: c.id });
      await read().get(`/api/collections/${c.id}/assets/`).set(bearer(other)).expect(404);
      await setCollectionPermissions(h, owner, c.id, [{ subject_type: 'user', subject_id: other.id, flags: READ }]);
      expect((await read().get(`/api/collections/${c.id}/assets/`).set(bearer(other)).expect(403)).body.code).toBe('permission_denied');
      await setCollectionPermissions(h, owner, c.id, [{ subject_type: 'user', subject_id: other.id, flags: LIST }]);
      await read().get(`/api/collections/${c.id}/assets/`).set(bearer(other)).expect(404);
      await setCollectionPermissions(h, owner, c.id, [{ subject_type: 'user', subject_id: other.id, flags: READ | LIST }]);
      expect((await read().get(`/api/collections/${c.id}/assets/`).set(bearer(other)).expect(200)).body).toHaveLength(1);
      await read().get(`/api/collections/${c.id}/assets/`).expect(401);
      await read().get(`/api/collections/${unknown}/assets/`).set(bearer(owner)).expect(404);
    });
  });

  describe('the collection listing', () => {
    it.runIf(shape === 'all')('filters by access_scope, owner_id, owner_type, parent_id and q, and pages by keyset', async () => {
      const [me, friend] = [await h.createUser(), await h.createUser()];
      const organizationId = await organization(h, `Listing Institute ${shape}`);
      await join(h, organizationId, me);
      await join(h, organizationId, friend);
      const project = await createProject(h, friend, organizationId, `Listing project ${shape}`);
      await addMember(h, friend, project.id, me, 'viewer');
      const mineA = await createCollection(h, me, { title: 'Glacier Alpha', alias: 'ga' });
      const mineB = await createCollection(h, me, { title: 'Moraine', alias: 'GLACIAL-b', parent_id: mineA.id });
      const mineC = await createCollection(h, me, { title: '100% ice_core', parent_id: mineA.id });
      const projectC = await createCollection(h, friend, { title: 'Project glacier', owner_type: 'project', owner_id: project.id });
      const direct = await createCollection(h, friend, { title: 'Shared directly' });
      const viaOrg = await createCollection(h, friend, { title: 'Shared with the org' });
      const pub = await createCollection(h, friend, { title: 'Public glacier' });
      const below = await createCollection(h, friend, { title: 'Below the shared one', parent_id: direct.id });
      const notMine = await createCollection(h, friend, { title: 'Glacier, private' });
      await setCollectionPermissions(h, friend, direct.id, [{ subject_type: 'user', subject_id: me.id, flags: READ }]);
      await setCollectionPermissions(h, friend, viaOrg.id, [{ subject_type: 'organization', subject_id: organizationId, flags: READ }]);
      await setCollectionPermissions(h, friend, pub.id, [{ subject_type: 'public', flags: READ }]);
      const myRoot = mineA.parent_id as string;
      const list = async (query: string, limit = 100) => ids(await everyPage<Collection>(h, me, `/api/collections/${query}`, limit));
      const everything = await list('');
      // Public collections of other tests' users are visible too; keep to this world.
      const world = new Set([myRoot, mineA.id, mineB.id, mineC.id, project.root_collection_id, projectC.id, direct.id, viaOrg.id, pub.id, below.id]);
      const inWorld = (list: string[]) => list.filter((id) => world.has(id));
      expect(new Set(inWorld(everything))).toEqual(world);
      expect(everything).not.toContain(notMine.id);
      // Newest first, then by id; every page size gives the same, without repeats.
      for (const limit of [1, 2, 3, 7]) expect(await list('', limit)).toEqual(everything);
      const all = await everyPage<Collection>(h, me, '/api/collections/', 1000);
      const sorted = [...all].sort((x, y) => (x.created_at < y.created_at ? 1 : x.created_at > y.created_at ? -1 : x.id < y.id ? -1 : 1));
      expect(ids(all)).toEqual(ids(sorted));
      // Filters.
      expect(new Set(await list(`?owner_id=${me.id}`))).toEqual(new Set([myRoot, mineA.id, mineB.id, mineC.id]));
      expect(new Set(await list(`?owner_id=${project.id}`))).toEqual(new Set([project.root_collection_id, projectC.id]));
      expect(new Set(inWorld(await list('?owner_type=project')))).toEqual(new Set([project.root_collection_id, projectC.id]));
      expect(new Set(inWorld(await list('?owner_type=user')))).toEqual(new Set([...world].filter((id) => id !== project.root_collection_id && id !== projectC.id)));
      expect(new Set(await list(`?parent_id=${mineA.id}`))).toEqual(new Set([mineB.id, mineC.id]));
      expect(await list(`?parent_id=${direct.id}`)).toEqual([below.id]);
      expect(new Set(inWorld(await list('?q=GLAC')))).toEqual(new Set([mineA.id, mineB.id, projectC.id, pub.id]));
      expect(new Set(await list(`?q=glac&owner_id=${me.id}`))).toEqual(new Set([mineA.id, mineB.id]));
      expect(await list(`?q=${encodeURIComponent('0%')}&owner_id=${me.id}`)).toEqual([mineC.id]);
      expect(await list(`?q=${encodeURIComponent('%')}&owner_id=${me.id}`)).toEqual([mineC.id]);
      expect(await list(`?q=_&owner_id=${me.id}`)).toEqual([mineC.id]);
      expect(await list(`?q=zzz-nothing`)).toEqual([]);
      expect(await list(`?q=glacier&owner_type=project&parent_id=${project.root_collection_id}`)).toEqual([projectC.id]);
      // Access scopes: why the caller sees it.
      expect(new Set(inWorld(await list('?access_scope=direct')))).toEqual(new Set([myRoot, mineA.id, mineB.id, mineC.id, direct.id, below.id]));
      expect(new Set(inWorld(await list('?access_scope=project')))).toEqual(new Set([project.root_collection_id, projectC.id]));
      expect(new Set(inWorld(await list('?access_scope=organization')))).toEqual(new Set([viaOrg.id]));
      expect(new Set(inWorld(await list('?access_scope=public')))).toEqual(new Set([pub.id]));
      expect(new Set(inWorld(await list('?access_scope=home')))).toEqual(new Set([myRoot, mineA.id, mineB.id, mineC.id, direct.id, below.id, viaOrg.id, pub.id]));
      const scopes = Object.fromEntries(all.filter((c) => world.has(c.id)).map((c) => [c.id, c.access_scope]));
      expect(scopes).toMatchObject({ [mineA.id]: 'direct', [below.id]: 'direct', [projectC.id]: 'project', [viaOrg.id]: 'organization', [pub.id]: 'public' });
      // Bad parameters are 400, anonymous 401.
      for (const bad of ['access_scope=nope', 'owner_type=organization', 'owner_id=x', 'parent_id=x', `q=${'x'.repeat(256)}`, 'limit=x', 'cursor=garbage'])
        expect((await read().get(`/api/collections/?${bad}`).set(bearer(me))).status, bad).toBe(400);
      await read().get('/api/collections/').expect(401);
      const assetCursor = (await read().get(`/api/collections/${mineA.id}/assets/?limit=1`).set(bearer(me)).expect(200)).headers['x-next-cursor'];
      expect(assetCursor).toBeUndefined();
      const oneCursor = (await read().get('/api/collections/?limit=1').set(bearer(me)).expect(200)).headers['x-next-cursor'] as string;
      expect((await read().get(`/api/collections/${mineA.id}/assets/?cursor=${encodeURIComponent(oneCursor)}`).set(bearer(me)).expect(400)).body.code).toBe('invalid_cursor');
      // A system administrator sees everyone's, with access_scope admin where nothing else applies.
      const asAdmin = await everyPage<Collection>(h, admin, `/api/collections/?owner_id=${friend.id}`, 100);
      expect(ids(asAdmin)).toContain(notMine.id);
      expect(asAdmin.find((c) => c.id === notMine.id)?.access_scope).toBe('admin');
    });
  });

  describe('permissions', () => {
    it('replaces and reads the collection’s own entries (MANAGE), subjects resolved', async () => {
      const c = await createCollection(h, owner, { title: 'Permissions' });
      const put = (who: User, permissions: unknown) => write().put(`/api/collections/${c.id}/permissions/`).set(bearer(who)).send({ permissions });
      const entries = (await put(owner, [
        { subject_type: 'user', subject_id: other.id.toUpperCase(), flags: READ | LIST },
        { subject_type: 'public', subject_id: null, flags: READ },
        { subject_type: 'user', subject_id: third.id, flags: READ | MANAGE },
      ]).expect(200)).body;
      expect(entries).toEqual(
        expect.arrayContaining([
          // No e-mail address but to system administrators and the user themself (DECISIONS.md 2).
          { subject: { id: other.id, subject_type: 'user', name: await nameOf(other), email: '' }, flags: READ | LIST },
          { subject: { id: third.id, subject_type: 'user', name: await nameOf(third), email: '' }, flags: READ | MANAGE },
          { subject: { id: null, subject_type: 'public', name: expect.any(String), email: '' }, flags: READ },
        ]),
      );
      expect(entries).toHaveLength(3);
      expect((await read().get(`/api/collections/${c.id}/permissions/`).set(bearer(owner)).expect(200)).body).toEqual(entries);
      // MANAGE: `third` holds it, `other` does not; others cannot tell it exists.
      const withEmail = (entry: { subject: { id: string | null } }) => (entry.subject.id === third.id ? { ...entry, subject: { ...entry.subject, email: third.email } } : entry);
      expect((await read().get(`/api/collections/${c.id}/permissions/`).set(bearer(third)).expect(200)).body).toEqual((entries as { subject: { id: string | null } }[]).map(withEmail));
      expect((await read().get(`/api/collections/${c.id}/permissions/`).set(bearer(other)).expect(403)).body.code).toBe('permission_denied');
      expect((await put(other, []).expect(403)).body.code).toBe('permission_denied');
      const stranger = await h.createUser();
      // The public entry lets a stranger see it but not manage it.
      await read().get(`/api/collections/${c.id}/permissions/`).set(bearer(stranger)).expect(403);
      await put(third, [{ subject_type: 'user', subject_id: third.id, flags: READ | MANAGE }]).expect(200);
      await read().get(`/api/collections/${c.id}/permissions/`).set(bearer(stranger)).expect(404);
      await read().get(`/api/collections/${c.id}/`).set(bearer(other)).expect(404);
      // Malformed entries: 400; unknown subjects: 404.
      expect((await put(owner, [{ subject_type: 'user', subject_id: unknown, flags: 1 }])).status).toBe(404);
      for (const bad of [
        [{ subject_type: 'robot', subject_id: other.id, flags: 1 }],
        [{ subject_type: 'user', subject_id: other.id, flags: 512 }],
        [{ subject_type: 'user', flags: 1 }],
        'nope',
      ])
        expect((await put(owner, bad)).status, JSON.stringify(bad)).toBe(400);
      await write().put(`/api/collections/${c.id}/permissions/`).set(bearer(owner)).send({}).expect(400);
      await write().put(`/api/collections/${unknown}/permissions/`).set(bearer(owner)).send({ permissions: [] }).expect(404);
      await read().get(`/api/collections/${unknown}/permissions/`).set(bearer(owner)).expect(404);
    });

    it('an entry without READ_METADATA on a holding collection gives its other flags on an asset read otherwise', async () => {
      const writer = await h.createUser();
      const top = await createCollection(h, owner, { title: 'Write-only top' });
      const c = await createCollection(h, owner, { title: 'Write-only below', parent_id: top.id });
      await setCollectionPermissions(h, owner, top.id, [{ subject_type: 'user', subject_id: writer.id, flags: WRITE }]);
      const hidden = await createAsset(h, owner, { title: 'Not readable', collection_id: c.id });
      const readable = await createAsset(h, owner, { title: 'Readable by its own entry', collection_id: c.id });
      await setPermissions(h, owner, readable.id, [{ subject_type: 'user', subject_id: writer.id, flags: READ }]);
      await read().get(`/api/assets/${hidden.id}/`).set(bearer(writer)).expect(404);
      await read().get(`/api/collections/${c.id}/`).set(bearer(writer)).expect(404);
      expect((await read().get(`/api/assets/${readable.id}/`).set(bearer(writer)).expect(200)).body).toMatchObject({ effective_flags: READ | WRITE, access_scope: 'direct' });
      expect((await everyPage(h, writer, '/api/assets/', 100)).map((a) => [a.id, a.effective_flags])).toEqual([[readable.id, READ | WRITE]]);
      await write().patch(`/api/assets/${readable.id}/`).set(bearer(writer)).send({ description: 'Written through the collection' }).expect(200);
    });

    it('entries flow down to sub-collections and their assets, and a grant change or a move shows at once', async () => {
      const reader = await h.createUser();
      const top = await createCollection(h, owner, { title: 'Granting top' });
      const mid = await createCollection(h, owner, { title: 'Granting mid', parent_id: top.id });
      const leaf = await createCollection(h, owner, { title: 'Granting leaf', parent_id: mid.id });
      const outside = await createCollection(h, owner, { title: 'Outside' });
      const asset = await createAsset(h, owner, { title: 'Deep asset', collection_id: leaf.id });
      const own = await createAsset(h, owner, { title: 'Own entry asset', collection_id: leaf.id });
      await setPermissions(h, owner, own.id, [{ subject_type: 'user', subject_id: reader.id, flags: READ | 16 }]);
      const seesAsset = async () => (await read().get(`/api/assets/${asset.id}/`).set(bearer(reader))).status;
      expect(await seesAsset()).toBe(404);
      expect(ids(await everyPage(h, reader, '/api/assets/', 100))).toEqual([own.id]);

      await setCollectionPermissions(h, owner, top.id, [{ subject_type: 'user', subject_id: reader.id, flags: READ | LIST }]);
      for (const c of [top, mid, leaf]) expect((await getCollection(h, reader, c.id)).effective_flags, c.title).toBe(READ | LIST);
      await read().get(`/api/collections/${outside.id}/`).set(bearer(reader)).expect(404);
      const seen = (await read().get(`/api/assets/${asset.id}/`).set(bearer(reader)).expect(200)).body as Asset;
      expect(seen).toMatchObject({ effective_flags: READ | LIST, access_scope: 'collection', collection_ids: [leaf.id] });
      // Its own entry and the collections' flags together; its own entry is the more direct reason.
      expect((await read().get(`/api/assets/${own.id}/`).set(bearer(reader)).expect(200)).body).toMatchObject({ effective_flags: READ | LIST | 16, access_scope: 'direct' });
      expect(new Set(ids(await everyPage(h, reader, '/api/assets/', 1)))).toEqual(new Set([asset.id, own.id]));
      expect(new Set(ids(await everyPage(h, reader, `/api/collections/${leaf.id}/assets/`, 1)))).toEqual(new Set([asset.id, own.id]));
      // More on the middle adds to what comes from the top.
      await setCollectionPermissions(h, owner, mid.id, [{ subject_type: 'user', subject_id: reader.id, flags: WRITE }]);
      expect((await getCollection(h, reader, leaf.id)).effective_flags).toBe(READ | LIST | WRITE);
      expect((await getCollection(h, reader, top.id)).effective_flags).toBe(READ | LIST);
      expect((await read().get(`/api/assets/${asset.id}/`).set(bearer(reader)).expect(200)).body.effective_flags).toBe(READ | LIST | WRITE);
      await write().patch(`/api/assets/${asset.id}/`).set(bearer(reader)).send({ description: 'Written through the collection' }).expect(200);
      // A move out of the granted subtree takes it all away at once, and back gives it again.
      await moveCollection(h, owner, mid.id, outside.id);
      expect(await seesAsset()).toBe(404);
      await read().get(`/api/collections/${leaf.id}/`).set(bearer(reader)).expect(404);
      expect(ids(await everyPage(h, reader, '/api/assets/', 100))).toEqual([own.id]);
      await moveCollection(h, owner, mid.id, top.id);
      expect(await seesAsset()).toBe(200);
      // Revoking at the top takes away what came from it at once; the middle's own WRITE stays but shows nothing.
      await setCollectionPermissions(h, owner, top.id, []);
      expect(await seesAsset()).toBe(404);
      await read().get(`/api/collections/${leaf.id}/`).set(bearer(reader)).expect(404);
      await read().get(`/api/collections/${leaf.id}/assets/`).set(bearer(reader)).expect(404);
      // A public entry on the middle: every signed-in caller reads the leaf's assets.
      await setCollectionPermissions(h, owner, mid.id, [{ subject_type: 'public', flags: READ }]);
      const stranger = await h.createUser();
      expect((await read().get(`/api/assets/${asset.id}/`).set(bearer(stranger)).expect(200)).body).toMatchObject({ effective_flags: READ, access_scope: 'collection' });
      expect((await getCollection(h, stranger, leaf.id)).access_scope).toBe('public');
      // Detaching the asset takes it out of what the collection gives.
      await write().delete(`/api/collections/${leaf.id}/assets/${asset.id}/`).set(bearer(owner)).expect(204);
      await read().get(`/api/assets/${asset.id}/`).set(bearer(stranger)).expect(404);
    });
  });
});

describe('a move of a subtree of 1,000 collections', () => {
  let h: Harness;
  let owner: User;
  let before: User;
  let after: User;

  beforeAll(async () => {
    h = await startHarness('all');
    [owner, before, after] = [await h.createUser(), await h.createUser(), await h.createUser()];
  });
  afterAll(async () => h?.close());

  it('rewrites every parent_ids and moves what the old and new ancestors give its assets', async () => {
    const oldAncestor = await createCollection(h, owner, { title: 'Old ancestor' });
    const newAncestor = await createCollection(h, owner, { title: 'New ancestor' });
    await setCollectionPermissions(h, owner, oldAncestor.id, [{ subject_type: 'user', subject_id: before.id, flags: READ | LIST }]);
    await setCollectionPermissions(h, owner, newAncestor.id, [{ subject_type: 'user', subject_id: after.id, flags: READ | LIST }]);
    const top = await createCollection(h, owner, { title: 'Subtree top', parent_id: oldAncestor.id });
    // 1 + 9 + 90 + 900 = 1,000 collections, four levels.
    const all: Collection[] = [top];
    let level: Collection[] = [top];
    for (const width of [9, 10, 10]) {
      const parents = level.flatMap((p) => Array.from({ length: width }, () => p));
      level = await inBatches(parents, 20, (p, i) => createCollection(h, owner, { title: `Node ${all.length + i}`, parent_id: p.id }));
      all.push(...level);
    }
    expect(all).toHaveLength(1000);
    const depthOf = new Map(all.map((c) => [c.id, c.parent_ids.length]));
    // Assets at every level.
    const holders = [top, all[1], all[20], all[500], all[999]] as Collection[];
    const assets = await inBatches(holders, 5, (c, i) => createAsset(h, owner, { title: `Subtree asset ${i}`, collection_id: c.id }));
    const visibleTo = async (who: User) => new Set(ids(await everyPage(h, who, '/api/assets/', 100)));
    expect(await visibleTo(before)).toEqual(new Set(ids(assets)));
    expect(await visibleTo(after)).toEqual(new Set());

    const started = Date.now();
    const moved = await moveCollection(h, owner, top.id, newAncestor.id);
    const took = Date.now() - started;
    expect(moved.parent_ids).toEqual([newAncestor.parent_id, newAncestor.id]);
    expect(took).toBeLessThan(10_000);
    // Every row of the subtree shows the new chain: the root, the new ancestor, then the part from the top down.
    const rows = await everyPage<Collection>(h, owner, `/api/collections/?owner_id=${owner.id}`, 1000);
    const byId = new Map(rows.map((c) => [c.id, c]));
    for (const c of all) {
      const row = byId.get(c.id) as Collection;
      expect(row.parent_ids.slice(0, 2)).toEqual([newAncestor.parent_id, newAncestor.id]);
      expect(row.parent_ids.slice(2)).toEqual(c.parent_ids.slice(2));
      expect(row.parent_ids).toHaveLength(depthOf.get(c.id) ?? -1);
      expect(row.parent_id).toBe(c.id === top.id ? newAncestor.id : c.parent_id);
    }
    // The assets: the old ancestor's reader lost them, the new one's sees them, at once.
    expect(await visibleTo(before)).toEqual(new Set());
    expect(await visibleTo(after)).toEqual(new Set(ids(assets)));
    for (const a of assets) expect((await request(h.queryApp).get(`/api/assets/${a.id}/`).set(bearer(after)).expect(200)).body.access_scope).toBe('collection');
    expect((await getCollection(h, after, (all[999] as Collection).id)).effective_flags).toBe(READ | LIST);
    await request(h.queryApp).get(`/api/collections/${(all[999] as Collection).id}/`).set(bearer(before)).expect(404);
    // A cycle through the deep end is refused.
    expect((await request(h.commandApp).patch(`/api/collections/${top.id}/`).set(bearer(owner)).send({ parent_id: (all[999] as Collection).id }).expect(409)).body.code).toBe('collection_cycle');
  }, 90_000);
});
