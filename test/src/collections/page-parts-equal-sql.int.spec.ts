import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset, setPermissions, type Asset } from '../assets/assets-fixtures.ts';
import { addToGroup, createGroup } from '../groups/groups-fixtures.ts';
import { addMember, createProject, join, organization } from '../projects/projects-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { attachAssets, createCollection, everyPage, setCollectionPermissions, type Collection } from './collections-fixtures.ts';

/**
 * A page's flags, access scopes and collection ids are worked out in Node from the grants'
 * text (collectionViewOf, heldCollections): they must equal what PostgreSQL's functions of
 * migrations 0011 and 0014 answer (collections), and what an asset read by id answers (its
 * collections worked out in its own statement), for callers whose principals look alike
 * (a project's admin, member and viewer; an organization's admin and member; a group), a
 * system administrator, collections with no entries or with bits but no READ_METADATA,
 * assets in no collection or in many, and collection ids that are repeated or name no
 * collection.
 */
describe('page parts equal the SQL functions', () => {
  let h: Harness;
  let users: Record<string, User>;
  let collections: Collection[];
  let assets: Asset[];
  const read = () => request(h.queryApp);

  beforeAll(async () => {
    h = await startHarness('all');
    const names = ['owner', 'orgAdmin', 'orgMember', 'projectAdmin', 'projectMember', 'projectViewer', 'groupie', 'stranger'];
    users = {};
    for (const name of names) users[name] = await h.createUser();
    users['systemAdmin'] = await h.createUser({ admin: true });
    const u = users as Record<string, User>;
    const org = await organization(h, 'Oracle Institute');
    await join(h, org, u['orgAdmin'] as User, 'admin');
    for (const name of ['orgMember', 'projectAdmin', 'groupie']) await join(h, org, u[name] as User);
    const project = await createProject(h, u['projectAdmin'] as User, org, 'Oracle project');
    await addMember(h, u['projectAdmin'] as User, project.id, u['projectMember'] as User, 'member');
    await addMember(h, u['projectAdmin'] as User, project.id, u['projectViewer'] as User, 'viewer');
    const group = await createGroup(h, u['orgAdmin'] as User, org, 'Oracle group');
    await addToGroup(h, u['orgAdmin'] as User, group.id, (u['groupie'] as User).id);

    const asProject = { owner_type: 'project', owner_id: project.id };
    const top = await createCollection(h, u['projectAdmin'] as User, { title: 'Oracle top', ...asProject });
    await setCollectionPermissions(h, u['projectAdmin'] as User, top.id, [
      { subject_type: 'organization', subject_id: org, flags: 1 | 64 },
      { subject_type: 'group', subject_id: group.id, flags: 1 | 2 },
    ]);
    const middle = await createCollection(h, u['projectAdmin'] as User, { title: 'Oracle middle', parent_id: top.id, ...asProject });
    // Bits without READ_METADATA: they count in the flags, never in who sees.
    await setCollectionPermissions(h, u['projectAdmin'] as User, middle.id, [
      { subject_type: 'user', subject_id: (u['stranger'] as User).id, flags: 2 },
      { subject_type: 'public', subject_id: null, flags: 4 },
    ]);
    const mine = await createCollection(h, u['owner'] as User, { title: 'Oracle mine' });
    // A system administrator sees every subject; the owner may not see the project.
    await setCollectionPermissions(h, u['systemAdmin'] as User, mine.id, [
      { subject_type: 'project', subject_id: project.id, flags: 1 | 256 },
      { subject_type: 'user', subject_id: (u['orgMember'] as User).id, flags: 1 | 128 },
    ]);
    const bare = await createCollection(h, u['owner'] as User, { title: 'Oracle bare' });
    const below = await createCollection(h, u['owner'] as User, { title: 'Oracle below', parent_id: mine.id });
    const doomed = await createCollection(h, u['owner'] as User, { title: 'Oracle doomed' });
    await setCollectionPermissions(h, u['owner'] as User, doomed.id, [{ subject_type: 'public', subject_id: null, flags: 1 | 64 }]);
    collections = [top, middle, mine, bare, below, doomed];

    const sa = u['systemAdmin'] as User;
    const inMany = await createAsset(h, u['owner'] as User, { title: 'Oracle in many' });
    await attachAssets(h, sa, top.id, [inMany.id]);
    await attachAssets(h, sa, middle.id, [inMany.id]);
    await attachAssets(h, sa, mine.id, [inMany.id]);
    await attachAssets(h, sa, bare.id, [inMany.id]);
    const inNone = await createAsset(h, u['projectAdmin'] as User, { title: 'Oracle in none', ...asProject });
    await setPermissions(h, u['projectAdmin'] as User, inNone.id, [{ subject_type: 'user', subject_id: (u['orgAdmin'] as User).id, flags: 1 }]);
    const inBare = await createAsset(h, u['owner'] as User, { title: 'Oracle in bare' });
    await setPermissions(h, u['owner'] as User, inBare.id, [{ subject_type: 'public', subject_id: null, flags: 1 }]);
    await attachAssets(h, u['owner'] as User, bare.id, [inBare.id]);
    const inBelow = await createAsset(h, u['owner'] as User, { title: 'Oracle in below' });
    await attachAssets(h, u['owner'] as User, below.id, [inBelow.id]);
    const inDoomed = await createAsset(h, u['owner'] as User, { title: 'Oracle in doomed' });
    await attachAssets(h, u['owner'] as User, doomed.id, [inDoomed.id]);
    const oddIds = await createAsset(h, u['owner'] as User, { title: 'Oracle odd ids' });
    await attachAssets(h, u['owner'] as User, below.id, [oddIds.id]);
    assets = [inMany, inNone, inBare, inBelow, inDoomed, oddIds];
    // The read model as no write makes it, but as a reader must take it: an id twice, an id of no collection.
    await h.resources.pool.query('update assets set collection_ids = array[$2::uuid, $3::uuid, $2::uuid, $4::uuid] where id = $1', [oddIds.id, middle.id, randomUUID(), below.id]);
    await h.resources.pool.query('delete from collections where id = $1', [doomed.id]);
    await h.resources.pool.query('delete from collection_reader_order where collection_id = $1', [doomed.id]);
    // A change by hand writes a new version of the collections' facts, as migration 0054 asks.
    await h.resources.pool.query('update collection_facts_version set version = gen_random_uuid()::text');
    for (const who of ['groupie', 'projectViewer', 'orgAdmin']) await request(h.commandApp).post(`/api/assets/${inMany.id}/star/`).set(bearer(u[who] as User)).expect(204);
    await request(h.commandApp).post(`/api/assets/${oddIds.id}/star/`).set(bearer(u['orgMember'] as User)).expect(204);
    await h.resources.pool.query('analyze assets');
    await h.resources.pool.query('analyze asset_stars');
    await h.resources.pool.query('analyze collections');
  }, 120_000);
  afterAll(async () => h?.close());

  /** What the functions kept in PostgreSQL answer for the caller on a collection. */
  async function expectedCollection(user: User, id: string, isAdmin: boolean) {
    const { rows } = await h.resources.pool.query<{ flags: number; scope: string | null }>(
      `select cairn_effective_flags(c.owner_grants, cairn_grants_union(c.entry_grants, c.inherited_grants), cairn_principals($2), $3) as flags,
        cairn_access_scope(c.readers, cairn_principals($2), $3) as scope from collections c where c.id = $1`,
      [id, user.id, isAdmin],
    );
    return rows[0];
  }

  const callers = () => Object.entries(users).map(([name, user]) => ({ name, user, isAdmin: name === 'systemAdmin' }));

  it("a collection's flags and access scope, by id and listed, are the SQL functions'", async () => {
    for (const { name, user, isAdmin } of callers()) {
      const listed = (await read().get('/api/collections/').set(bearer(user)).expect(200)).body as Collection[];
      const paged = await everyPage<Collection>(h, user, '/api/collections/', 1);
      for (const collection of collections) {
        const expected = await expectedCollection(user, collection.id, isAdmin);
        const res = await read().get(`/api/collections/${collection.id}/`).set(bearer(user));
        if (expected === undefined || (!isAdmin && (expected.flags & 1) === 0)) {
          expect(res.status, `${name} ${collection.title}`).toBe(404);
          expect(listed.map((c) => c.id), name).not.toContain(collection.id);
          continue;
        }
        expect(res.status, `${name} ${collection.title}`).toBe(200);
        const want = { effective_flags: expected.flags, access_scope: expected.scope };
        const pick = (c: Collection | undefined) => ({ effective_flags: c?.effective_flags, access_scope: c?.access_scope });
        expect(pick(res.body as Collection), `${name} ${collection.title}`).toEqual(want);
        expect(pick(listed.find((c) => c.id === collection.id)), `${name} ${collection.title} listed`).toEqual(want);
        expect(pick(paged.find((c) => c.id === collection.id)), `${name} ${collection.title} paged`).toEqual(want);
      }
    }
  }, 120_000);

  it('the access_scope filter (SQL) keeps exactly the listed collections of that access scope (Node)', async () => {
    const met = new Set<string>();
    for (const { name, user } of callers()) {
      const all = (await read().get('/api/collections/').set(bearer(user)).expect(200)).body as Collection[];
      for (const scope of ['direct', 'project', 'group', 'organization', 'public', 'admin']) {
        const kept = (await read().get(`/api/collections/?access_scope=${scope}`).set(bearer(user)).expect(200)).body as Collection[];
        const want = all.filter((c) => c.access_scope === scope).map((c) => c.id);
        expect(kept.map((c) => c.id), `${name} ${scope}`).toEqual(want);
        if (want.length > 0) met.add(scope);
      }
    }
    expect([...met].sort()).toEqual(['admin', 'direct', 'group', 'organization', 'project']);
  }, 120_000);

  it("a listed asset's flags, access scope and collections are those of the asset read by id", async () => {
    const ours = new Set(assets.map((a) => a.id));
    const pick = (a: Asset) => ({ id: a.id, effective_flags: a.effective_flags, access_scope: a.access_scope, collection_ids: a.collection_ids, is_starred: a.is_starred });
    for (const { name, user } of callers()) {
      const byId: Asset[] = [];
      for (const asset of assets) {
        const res = await read().get(`/api/assets/${asset.id}/`).set(bearer(user));
        expect([200, 404], name).toContain(res.status);
        if (res.status === 200) byId.push(res.body as Asset);
      }
      const expected = byId.map(pick).sort((x, y) => (x.id < y.id ? -1 : 1));
      const pages = [
        await everyPage(h, user, '/api/assets/', 2),
        await everyPage(h, user, '/api/assets/?title_prefix=oracle', 2),
        await everyPage(h, user, '/api/assets/?title_prefix=ORACLE%20IN', 1),
        await everyPage(h, user, '/api/assets/?q=RACLE', 2),
      ];
      for (const [i, page] of pages.entries()) {
        const got = page
          .filter((a) => ours.has(a.id))
          .map(pick)
          .sort((x, y) => (x.id < y.id ? -1 : 1));
        const want = i === 2 ? expected.filter((a) => a.id !== assets[5]?.id) : expected;
        expect(got, `${name}, listing ${i}`).toEqual(want);
      }
      for (const collection of collections.slice(0, 5)) {
        const res = await read().get(`/api/collections/${collection.id}/assets/`).set(bearer(user));
        if (res.status !== 200) continue;
        for (const listed of res.body as Asset[]) expect(pick(listed), `${name} in ${collection.title}`).toEqual(expected.find((a) => a.id === listed.id));
      }
    }
  }, 180_000);
});
