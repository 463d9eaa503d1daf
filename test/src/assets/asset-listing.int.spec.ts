import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type Project, type User } from '../support/api.ts';
import { startHarness, type Harness, type Shape } from '../support/harness.ts';
import { addToGroup, createGroup } from '../groups/groups-fixtures.ts';
import { addMember, createProject, join, organization } from '../projects/projects-fixtures.ts';
import { listingOrder, marker, queryString, type Query } from './asset-listing-fixtures.ts';
import { createAsset, setPermissions, type Asset } from './assets-fixtures.ts';

/**
 * GET /api/assets/ over HTTP: every parameter of interface 4.3.1, the headers of 4.3.2,
 * the order (-is_starred of the caller, -created_at, id) and visibility (READ_METADATA).
 * Each test tags its assets with a marker of its own and filters on it (`tags` is ANDed
 * with everything), so the tests of one file share a database without seeing each other.
 */

describe.each<Shape>(['all', 'split'])('asset listing over HTTP (%s)', (shape) => {
  let h: Harness;
  /** Admin of the organization and of the project. */
  let alice: User;
  /** Member of the organization, the project and the group. */
  let bob: User;
  /** Member of the organization only. */
  let carol: User;
  let outsider: User;
  let admin: User;
  let organizationId: string;
  let project: Project;
  let groupId: string;
  const read = () => request(h.queryApp);
  const write = () => request(h.commandApp);

  const list = (caller: User, query: Query = {}) => read().get(`/api/assets/?${queryString(query)}`).set(bearer(caller));

  async function listed(caller: User, query: Query = {}): Promise<Asset[]> {
    const res = await list(caller, query);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as Asset[];
  }
  const titlesOf = async (caller: User, query: Query = {}) => (await listed(caller, query)).map((a) => a.title);
  const sortedTitles = async (caller: User, query: Query = {}) => (await titlesOf(caller, query)).sort();

  /** Every page until X-Has-More is false, checking the headers of 4.3.2 on each. */
  async function everyPage(caller: User, query: Query, limit: number): Promise<Asset[]> {
    const seen: Asset[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 500; page += 1) {
      const res = await list(caller, { ...query, limit, ...(cursor ? { cursor } : {}) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.headers['x-page-limit']).toBe(String(limit));
      const body = res.body as Asset[];
      seen.push(...body);
      expect(body.length).toBeLessThanOrEqual(limit);
      if (res.headers['x-has-more'] === 'false') {
        expect(res.headers['x-next-cursor']).toBeUndefined();
        return seen;
      }
      expect(res.headers['x-has-more']).toBe('true');
      expect(body).toHaveLength(limit);
      cursor = res.headers['x-next-cursor'] as string;
      expect(cursor).toEqual(expect.any(String));
    }
    throw new Error('the listing never ended');
  }

  const star = (caller: User, asset: Asset) => write().post(`/api/assets/${asset.id}/star/`).set(bearer(caller)).expect(204);
  const unstar = (caller: User, asset: Asset) => write().delete(`/api/assets/${asset.id}/star/`).set(bearer(caller)).expect(204);

  beforeAll(async () => {
    h = await startHarness(shape);
    [alice, bob, carol, outsider, admin] = [await h.createUser(), await h.createUser(), await h.createUser(), await h.createUser(), await h.createUser({ admin: true })];
    organizationId = await organization(h, `Listing Lab ${shape}`);
    await join(h, organizationId, alice, 'admin');
    await join(h, organizationId, bob);
    await join(h, organizationId, carol);
    project = await createProject(h, alice, organizationId, `Listing project ${shape}`);
    await addMember(h, alice, project.id, bob, 'member');
    groupId = (await createGroup(h, alice, organizationId, 'Listing group')).id;
    await addToGroup(h, alice, groupId, bob.id);
  });
  afterAll(async () => h?.close());

  it('answers 401 with WWW-Authenticate to an anonymous caller or a bad token', async () => {
    const anonymous = await read().get('/api/assets/').expect(401);
    expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(anonymous.body).toMatchObject({ status: 401, code: expect.any(String) });
    const bad = await read().get('/api/assets/').set('Authorization', 'Bearer not-a-token').expect(401);
    expect(bad.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('pages starred first, then newest first, with signed cursors and the headers (the first slice)', async () => {
    const m = marker();
    const made: Asset[] = [];
    for (let i = 0; i < 7; i += 1) made.push(await createAsset(h, outsider, { title: `A${i}`, tags: i % 2 ? [m, 'odd'] : [m, 'even'], metadata: { n: i, kind: i % 2 ? 'odd' : 'even' } }));
    await star(outsider, made[1] as Asset);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const res = await list(outsider, { tags: m, limit: 3, ...(cursor ? { cursor } : {}) }).expect(200);
      expect(res.headers['x-page-limit']).toBe('3');
      seen.push(...(res.body as Asset[]).map((a) => a.title));
      if (res.headers['x-has-more'] === 'false') break;
      cursor = res.headers['x-next-cursor'] as string;
      expect(cursor).toMatch(/^v1\./);
    }
    expect(seen).toEqual(['A1', 'A6', 'A5', 'A4', 'A3', 'A2', 'A0']);
    expect(await titlesOf(outsider, { tags: `${m},odd`, metadata: ['n:3'] })).toEqual(['A3']);
    const tampered = await list(outsider, { cursor: `${cursor ?? ''}x` }).expect(400);
    expect(tampered.body.code).toBe('invalid_cursor');
  });

  describe('order and stars', () => {
    it('lists the caller’s starred assets first, each caller their own, then newest first; every page size agrees', async () => {
      const m = marker();
      const made: Asset[] = [];
      for (let i = 0; i < 6; i += 1) {
        const asset = await createAsset(h, alice, { title: `s${i}`, tags: [m] });
        await setPermissions(h, alice, asset.id, [{ subject_type: 'organization', subject_id: organizationId, flags: 1 }]);
        made.push(asset);
      }
      const [s0, s1, s2, , s4] = made as [Asset, Asset, Asset, Asset, Asset, Asset];
      await star(alice, s1);
      await star(alice, s4);
      await star(bob, s2);
      const expectations: [User, string[], string[]][] = [
        [alice, ['s4', 's1', 's5', 's3', 's2', 's0'], ['s4', 's1']],
        [bob, ['s2', 's5', 's4', 's3', 's1', 's0'], ['s2']],
        [carol, ['s5', 's4', 's3', 's2', 's1', 's0'], []],
      ];
      for (const [caller, order, starred] of expectations) {
        const first = await listed(caller, { tags: m });
        expect(first.map((a) => a.title)).toEqual(order);
        expect(first.filter((a) => a.is_starred).map((a) => a.title)).toEqual(starred);
        for (const limit of [1, 2, 4, 6, 7]) expect((await everyPage(caller, { tags: m }, limit)).map((a) => a.title)).toEqual(order);
      }
      // `ordering` is accepted, whatever its value, and changes nothing.
      for (const ordering of ['title', '-title', 'created_at', '-is_starred', 'nonsense', '']) {
        expect(await titlesOf(bob, { tags: m, ordering })).toEqual(['s2', 's5', 's4', 's3', 's1', 's0']);
      }
      expect(await titlesOf(bob, { tags: m, ordering: ['title', 'id'] })).toEqual(['s2', 's5', 's4', 's3', 's1', 's0']);
      await unstar(alice, s4);
      await star(alice, s0);
      expect(await titlesOf(alice, { tags: m })).toEqual(['s1', 's0', 's5', 's4', 's3', 's2']);
      expect(await titlesOf(bob, { tags: m })).toEqual(['s2', 's5', 's4', 's3', 's1', 's0']);
    });

    it('breaks ties of created_at by id, across pages and in both phases', async () => {
      const m = marker();
      const made: Asset[] = [];
      for (let i = 0; i < 8; i += 1) made.push(await createAsset(h, alice, { title: `t${i}`, tags: [m] }));
      for (const asset of made.slice(0, 3)) await star(alice, asset);
      // Assets made in the same millisecond share created_at; force that for all eight
      // (and the copy kept with the stars), keeping microseconds, as concurrent creates give.
      const same = '2026-01-02T03:04:05.123456Z';
      const ids = made.map((a) => a.id);
      await h.resources.pool.query('update assets set created_at = $1 where id = any($2::uuid[])', [same, ids]);
      await h.resources.pool.query('update asset_stars set asset_created_at = $1 where asset_id = any($2::uuid[])', [same, ids]);
      const starredIds = made.slice(0, 3).map((a) => a.id).sort();
      const restIds = made.slice(3).map((a) => a.id).sort();
      const expected = [...starredIds, ...restIds];
      for (const limit of [1, 2, 3, 5, 100]) expect((await everyPage(alice, { tags: m }, limit)).map((a) => a.id)).toEqual(expected);
      // Another caller has no stars here: one run by id.
      await setPermissions(h, alice, made[0]?.id ?? '', [{ subject_type: 'public', flags: 1 }]);
      await setPermissions(h, alice, made[5]?.id ?? '', [{ subject_type: 'public', flags: 1 }]);
      expect((await everyPage(outsider, { tags: m }, 1)).map((a) => a.id)).toEqual([made[0]?.id, made[5]?.id].sort());
    });
  });

  describe('visibility', () => {
    it('lists only assets the caller may read (READ_METADATA): every subject kind, no bit 1 no listing, revocation removes', async () => {
      const m = marker();
      const asset = await createAsset(h, alice, { title: 'Shared by alice', tags: [m] });
      const who = async () => {
        const callers = { alice, bob, carol, outsider, admin };
        const seen: string[] = [];
        for (const [name, caller] of Object.entries(callers)) if ((await titlesOf(caller, { tags: m })).length > 0) seen.push(name);
        return seen;
      };
      expect(await who()).toEqual(['alice', 'admin']);
      // Every bit but READ_METADATA, to a user, the group, the organization, the project and everyone.
      await setPermissions(h, alice, asset.id, [
        { subject_type: 'user', subject_id: bob.id, flags: 510 },
        { subject_type: 'group', subject_id: groupId, flags: 2 | 4 | 16 },
        { subject_type: 'organization', subject_id: organizationId, flags: 64 },
        { subject_type: 'project', subject_id: project.id, flags: 4 },
        { subject_type: 'public', flags: 4 | 16 | 64 },
      ]);
      expect(await who()).toEqual(['alice', 'admin']);
      await setPermissions(h, alice, asset.id, [{ subject_type: 'user', subject_id: bob.id, flags: 1 }]);
      expect(await who()).toEqual(['alice', 'bob', 'admin']);
      await setPermissions(h, alice, asset.id, [{ subject_type: 'group', subject_id: groupId, flags: 1 | 4 }]);
      expect(await who()).toEqual(['alice', 'bob', 'admin']);
      await setPermissions(h, alice, asset.id, [{ subject_type: 'organization', subject_id: organizationId, flags: 1 }]);
      expect(await who()).toEqual(['alice', 'bob', 'carol', 'admin']);
      await setPermissions(h, alice, asset.id, [{ subject_type: 'project', subject_id: project.id, flags: 1 }]);
      expect(await who()).toEqual(['alice', 'bob', 'admin']);
      await setPermissions(h, alice, asset.id, [{ subject_type: 'public', flags: 1 }]);
      expect(await who()).toEqual(['alice', 'bob', 'carol', 'outsider', 'admin']);
      // Revoked: gone from every listing but the owner's and the administrator's.
      await setPermissions(h, alice, asset.id, []);
      expect(await who()).toEqual(['alice', 'admin']);
      expect((await listed(admin, { tags: m }))[0]).toMatchObject({ title: 'Shared by alice', access_scope: 'admin', effective_flags: 511 });
    });

    it('a deleted asset leaves every listing, the starred part too', async () => {
      const m = marker();
      const kept = await createAsset(h, bob, { title: 'kept', tags: [m] });
      const gone = await createAsset(h, bob, { title: 'gone', tags: [m] });
      await setPermissions(h, bob, gone.id, [{ subject_type: 'public', flags: 1 }]);
      await star(bob, gone);
      await star(outsider, gone);
      expect(await titlesOf(bob, { tags: m })).toEqual(['gone', 'kept']);
      await write().delete(`/api/assets/${gone.id}/`).set(bearer(bob)).expect(204);
      expect(await titlesOf(bob, { tags: m })).toEqual(['kept']);
      expect(await titlesOf(outsider, { tags: m })).toEqual([]);
      expect(await titlesOf(admin, { tags: m })).toEqual(['kept']);
      expect(kept.title).toBe('kept');
    });

    it('follows membership: leaving a group or a project hides what reached the caller through it', async () => {
      const m = marker();
      const group = await createGroup(h, alice, organizationId, `Transient ${m}`);
      await addToGroup(h, alice, group.id, carol.id);
      const viaGroup = await createAsset(h, alice, { title: 'via group', tags: [m] });
      await setPermissions(h, alice, viaGroup.id, [{ subject_type: 'group', subject_id: group.id, flags: 1 }]);
      const side = await createProject(h, alice, organizationId, `Side ${m}`);
      await addMember(h, alice, side.id, carol, 'viewer');
      const projectOwned = await createAsset(h, alice, { title: 'project owned', tags: [m], owner_type: 'project', owner_id: side.id });
      expect(await sortedTitles(carol, { tags: m })).toEqual(['project owned', 'via group']);
      await write().delete(`/api/groups/${group.id}/members/${carol.id}/`).set(bearer(alice)).expect(204);
      expect(await sortedTitles(carol, { tags: m })).toEqual(['project owned']);
      await write().delete(`/api/projects/${side.id}/members/${carol.id}/`).set(bearer(alice)).expect(204);
      expect(await sortedTitles(carol, { tags: m })).toEqual([]);
      expect(projectOwned.owner_type).toBe('project');
    });
  });

  describe('parameters of 4.3.1', () => {
    it('access_scope: home is direct, organization or public reach; every other value is the asset’s access_scope exactly; unknown 400', async () => {
      const m = marker();
      const make = async (caller: User, title: string, permissions: Parameters<typeof setPermissions>[3] | null, body: Record<string, unknown> = {}) => {
        const asset = await createAsset(h, caller, { title, tags: [m], ...body });
        if (permissions) await setPermissions(h, caller, asset.id, permissions);
        return asset;
      };
      await make(bob, 'own', null);
      await make(alice, 'granted', [{ subject_type: 'user', subject_id: bob.id, flags: 1 }]);
      await make(alice, 'project owned', null, { owner_type: 'project', owner_id: project.id });
      await make(alice, 'project grant', [{ subject_type: 'project', subject_id: project.id, flags: 1 }]);
      await make(alice, 'group grant', [{ subject_type: 'group', subject_id: groupId, flags: 1 }]);
      await make(alice, 'organization grant', [{ subject_type: 'organization', subject_id: organizationId, flags: 1 }]);
      await make(alice, 'organization owned', null, { owner_type: 'organization', owner_id: organizationId });
      await make(alice, 'public', [{ subject_type: 'public', flags: 1 }]);
      await make(alice, 'group and public', [
        { subject_type: 'group', subject_id: groupId, flags: 1 },
        { subject_type: 'public', flags: 1 },
      ]);
      await make(alice, 'project and public', [
        { subject_type: 'project', subject_id: project.id, flags: 1 },
        { subject_type: 'public', flags: 1 },
      ]);
      await make(alice, 'no read bit', [{ subject_type: 'user', subject_id: bob.id, flags: 2 | 4 | 16 }]);
      await make(alice, 'private', null);

      const scopes = Object.fromEntries((await listed(bob, { tags: m })).map((a) => [a.title, a.access_scope]));
      expect(scopes).toEqual({
        own: 'direct',
        granted: 'direct',
        'project owned': 'project',
        'project grant': 'project',
        'group grant': 'group',
        'organization grant': 'organization',
        'organization owned': 'organization',
        public: 'public',
        'group and public': 'group',
        'project and public': 'project',
      });
      const expected: Record<string, Record<string, string[]>> = {
        bob: {
          home: ['granted', 'group and public', 'organization grant', 'organization owned', 'own', 'project and public', 'public'],
          direct: ['granted', 'own'],
          project: ['project and public', 'project grant', 'project owned'],
          group: ['group and public', 'group grant'],
          organization: ['organization grant', 'organization owned'],
          public: ['public'],
          admin: [],
        },
        outsider: {
          home: ['group and public', 'project and public', 'public'],
          direct: [],
          project: [],
          group: [],
          organization: [],
          public: ['group and public', 'project and public', 'public'],
          admin: [],
        },
        admin: {
          home: ['group and public', 'project and public', 'public'],
          direct: [],
          project: [],
          group: [],
          organization: [],
          public: ['group and public', 'project and public', 'public'],
          admin: ['granted', 'group grant', 'no read bit', 'organization grant', 'organization owned', 'own', 'private', 'project grant', 'project owned'],
        },
      };
      const callers: Record<string, User> = { bob, outsider, admin };
      for (const [name, byScope] of Object.entries(expected)) {
        for (const [scope, titles] of Object.entries(byScope)) {
          const assets = await listed(callers[name] as User, { tags: m, access_scope: scope });
          expect(assets.map((a) => a.title).sort(), `${name} ${scope}`).toEqual(titles);
          if (scope !== 'home') for (const a of assets) expect(a.access_scope).toBe(scope);
        }
      }
      for (const bad of ['everything', 'HOME', 'mine']) {
        const res = await list(bob, { access_scope: bad }).expect(400);
        expect(res.body).toMatchObject({ status: 400, code: 'validation_error', errors: { access_scope: [expect.any(String)] } });
      }
    });

    it('collection_id: the assets a collection holds', async () => {
      const m = marker();
      const root = project.root_collection_id;
      const inside = await createAsset(h, bob, { title: 'in the root', tags: [m], collection_id: root });
      expect(inside.collection_ids).toEqual([root]);
      // A project's asset goes in a collection by a project admin's hand (MANAGE on it: DECISIONS.md 2).
      await createAsset(h, alice, { title: 'project owned, in the root', tags: [m], collection_id: root, owner_type: 'project', owner_id: project.id });
      await createAsset(h, bob, { title: 'outside', tags: [m] });
      expect(await sortedTitles(bob, { tags: m, collection_id: root })).toEqual(['in the root', 'project owned, in the root']);
      expect(await sortedTitles(bob, { tags: m, collection_id: root.toUpperCase() })).toEqual(['in the root', 'project owned, in the root']);
      expect(await sortedTitles(alice, { tags: m, collection_id: root })).toEqual(['project owned, in the root']);
      expect(await titlesOf(bob, { tags: m, collection_id: '00000000-0000-4000-8000-000000000000' })).toEqual([]);
      const bad = await list(bob, { collection_id: 'not-a-uuid' }).expect(400);
      expect(bad.body).toMatchObject({ code: 'validation_error', errors: { collection_id: [expect.any(String)] } });
    });

    it('limit: default 100, clamped to 1..1000 and reported in X-Page-Limit; not a number 400', async () => {
      const m = marker();
      for (let i = 0; i < 3; i += 1) await createAsset(h, bob, { title: `l${i}`, tags: [m] });
      const cases: [string | undefined, string, number, string][] = [
        [undefined, '100', 3, 'false'],
        ['0', '1', 1, 'true'],
        ['1', '1', 1, 'true'],
        ['-5', '1', 1, 'true'],
        ['2', '2', 2, 'true'],
        ['3', '3', 3, 'false'],
        ['1000', '1000', 3, 'false'],
        ['1001', '1000', 3, 'false'],
        ['99999999', '1000', 3, 'false'],
      ];
      for (const [limit, header, count, more] of cases) {
        const res = await list(bob, { tags: m, ...(limit === undefined ? {} : { limit }) }).expect(200);
        expect(res.headers['x-page-limit'], `limit ${limit}`).toBe(header);
        expect(res.body, `limit ${limit}`).toHaveLength(count);
        expect(res.headers['x-has-more'], `limit ${limit}`).toBe(more);
        if (more === 'true') expect(res.headers['x-next-cursor']).toMatch(/^v1\./);
        else expect(res.headers['x-next-cursor']).toBeUndefined();
      }
      for (const bad of ['abc', '1.5', '10x', '']) {
        const res = await list(bob, { tags: m, limit: bad }).expect(400);
        expect(res.body).toMatchObject({ status: 400, code: 'validation_error', errors: { limit: [expect.any(String)] } });
      }
    });

    it('locked: true or false; anything else 400', async () => {
      const m = marker();
      const frozen = await createAsset(h, bob, { title: 'frozen', tags: [m] });
      await createAsset(h, bob, { title: 'open', tags: [m] });
      await write().post(`/api/assets/${frozen.id}/lock/`).set(bearer(bob)).send({ locked: true, reason: 'review' }).expect(200);
      expect(await titlesOf(bob, { tags: m, locked: 'true' })).toEqual(['frozen']);
      expect(await titlesOf(bob, { tags: m, locked: 'false' })).toEqual(['open']);
      expect(await titlesOf(bob, { tags: m, locked: 'True' })).toEqual(['frozen']);
      expect(await sortedTitles(bob, { tags: m })).toEqual(['frozen', 'open']);
      await write().post(`/api/assets/${frozen.id}/lock/`).set(bearer(bob)).send({ locked: false }).expect(200);
      expect(await titlesOf(bob, { tags: m, locked: 'true' })).toEqual([]);
      for (const bad of ['maybe', '2', '']) {
        const res = await list(bob, { tags: m, locked: bad }).expect(400);
        expect(res.body).toMatchObject({ code: 'validation_error', errors: { locked: [expect.any(String)] } });
      }
    });

    it('metadata: key:value containment (strings, numbers, booleans, in lists, nested), bare key existence, all ANDed', async () => {
      const m = marker();
      await createAsset(h, bob, { title: 'M1', tags: [m], metadata: { kind: 'core', n: 3, flag: true, list: ['x', 'y', 7], site: { name: 'Dome C', depth: 10 }, url: 'http://a.example/x' } });
      await createAsset(h, bob, { title: 'M2', tags: [m], metadata: { kind: 'core', n: '3', flag: false, list: ['y'], site: { name: 'Vostok' } } });
      await createAsset(h, bob, { title: 'M3', tags: [m], metadata: { kind: 'snow', n: 4, other: null, nested: { deeper: { leaf: 'z' } } } });
      await createAsset(h, bob, { title: 'M4', tags: [m], metadata: {} });
      const cases: [string[], string[]][] = [
        [['kind:core'], ['M1', 'M2']],
        [['kind:Core'], []],
        [['kind:cor'], []],
        [['n:3'], ['M1', 'M2']],
        [['n:4'], ['M3']],
        [['n:3.0'], ['M1']],
        [['flag:true'], ['M1']],
        [['flag:false'], ['M2']],
        [['list:x'], ['M1']],
        [['list:y'], ['M1', 'M2']],
        [['list:7'], ['M1']],
        [['site.name:Dome C'], ['M1']],
        [['site.name:Dome'], []],
        [['site.depth:10'], ['M1']],
        [['nested.deeper.leaf:z'], ['M3']],
        [['url:http://a.example/x'], ['M1']],
        [['site'], ['M1', 'M2']],
        [['site.depth'], ['M1']],
        [['site.name'], ['M1', 'M2']],
        [['nested.deeper'], ['M3']],
        [['nested.deeper.leaf'], ['M3']],
        [['nested.leaf'], []],
        [['other'], ['M3']],
        [['n'], ['M1', 'M2', 'M3']],
        [['missing'], []],
        [['kind:core', 'list:x'], ['M1']],
        [['kind:core', 'site'], ['M1', 'M2']],
        [['kind:core', 'n:3', 'flag:false'], ['M2']],
        [['kind:core', 'flag:true', 'n:4'], []],
        [['n', 'other'], ['M3']],
      ];
      for (const [metadata, titles] of cases) expect(await sortedTitles(bob, { tags: m, metadata }), metadata.join(' & ')).toEqual(titles);
    });

    it('metadata: values that look like numbers but are not JSON numbers are matched as text, never a server error', async () => {
      const m = marker();
      await createAsset(h, bob, { title: 'zero-padded', tags: [m], metadata: { code: '007', n: 7, big: 'x' } });
      await createAsset(h, bob, { title: 'nulls', tags: [m], metadata: { big: null } });
      expect(await sortedTitles(bob, { tags: m, metadata: ['code:007'] })).toEqual(['zero-padded']);
      expect(await sortedTitles(bob, { tags: m, metadata: ['n:07'] })).toEqual([]);
      expect(await sortedTitles(bob, { tags: m, metadata: ['n:01.5'] })).toEqual([]);
      // A number too large for a double is not `null`.
      expect(await sortedTitles(bob, { tags: m, metadata: ['big:1e400'] })).toEqual([]);
      expect(await sortedTitles(bob, { tags: m, metadata: ['big:null'] })).toEqual(['nulls']);
    });

    it('owner_id and owner_type', async () => {
      const m = marker();
      await createAsset(h, bob, { title: 'bob', tags: [m] });
      await createAsset(h, alice, { title: 'project', tags: [m], owner_type: 'project', owner_id: project.id });
      await createAsset(h, alice, { title: 'organization', tags: [m], owner_type: 'organization', owner_id: organizationId });
      const alices = await createAsset(h, alice, { title: 'alice', tags: [m] });
      await setPermissions(h, alice, alices.id, [{ subject_type: 'user', subject_id: bob.id, flags: 1 }]);
      expect(await sortedTitles(bob, { tags: m, owner_type: 'user' })).toEqual(['alice', 'bob']);
      expect(await sortedTitles(bob, { tags: m, owner_type: 'project' })).toEqual(['project']);
      expect(await sortedTitles(bob, { tags: m, owner_type: 'organization' })).toEqual(['organization']);
      expect(await sortedTitles(bob, { tags: m, owner_id: bob.id })).toEqual(['bob']);
      expect(await sortedTitles(bob, { tags: m, owner_id: alice.id.toUpperCase() })).toEqual(['alice']);
      expect(await sortedTitles(bob, { tags: m, owner_id: project.id })).toEqual(['project']);
      expect(await sortedTitles(bob, { tags: m, owner_id: project.id, owner_type: 'project' })).toEqual(['project']);
      expect(await sortedTitles(bob, { tags: m, owner_id: project.id, owner_type: 'user' })).toEqual([]);
      await list(bob, { owner_type: 'group' }).expect(400);
      await list(bob, { owner_id: 'me' }).expect(400);
    });

    it('q: case-insensitive substring of the title or the alias, % and _ literal', async () => {
      const m = marker();
      await createAsset(h, bob, { title: 'Ice Core', alias: 'ic-1', tags: [m] });
      await createAsset(h, bob, { title: 'Firn', alias: 'ICECAP', tags: [m] });
      await createAsset(h, bob, { title: '100% pure', tags: [m] });
      await createAsset(h, bob, { title: '100x pure', tags: [m] });
      await createAsset(h, bob, { title: 'a_b', tags: [m] });
      await createAsset(h, bob, { title: 'axb', alias: 'back\\slash', tags: [m] });
      const cases: [string, string[]][] = [
        ['ice', ['Firn', 'Ice Core']],
        ['ICE', ['Firn', 'Ice Core']],
        ['cap', ['Firn']],
        ['core', ['Ice Core']],
        ['IC-1', ['Ice Core']],
        ['%', ['100% pure']],
        ['0%', ['100% pure']],
        ['_', ['a_b']],
        ['a_b', ['a_b']],
        ['\\', ['axb']],
        ['pure', ['100% pure', '100x pure']],
        ['nothing', []],
      ];
      for (const [q, titles] of cases) expect(await sortedTitles(bob, { tags: m, q }), q).toEqual(titles);
    });

    it('record_type: comma-separated values combined with OR', async () => {
      const m = marker();
      await createAsset(h, bob, { title: 'd', tags: [m], record_type: 'dataset' });
      await createAsset(h, bob, { title: 'i', tags: [m], record_type: 'image' });
      await createAsset(h, bob, { title: 's', tags: [m], record_type: 'sample' });
      await createAsset(h, bob, { title: 'none', tags: [m] });
      expect(await sortedTitles(bob, { tags: m, record_type: 'dataset' })).toEqual(['d']);
      expect(await sortedTitles(bob, { tags: m, record_type: 'dataset,image' })).toEqual(['d', 'i']);
      expect(await sortedTitles(bob, { tags: m, record_type: ' dataset , sample ,' })).toEqual(['d', 's']);
      expect(await sortedTitles(bob, { tags: m, record_type: 'Dataset' })).toEqual([]);
      expect(await sortedTitles(bob, { tags: m, record_type: 'video' })).toEqual([]);
    });

    it('tags: comma-separated, every one present', async () => {
      const m = marker();
      await createAsset(h, bob, { title: 'ab', tags: [m, 'a', 'b'] });
      await createAsset(h, bob, { title: 'a', tags: [m, 'a'] });
      await createAsset(h, bob, { title: 'bc', tags: [m, 'b', 'c'] });
      expect(await sortedTitles(bob, { tags: m })).toEqual(['a', 'ab', 'bc']);
      expect(await sortedTitles(bob, { tags: `${m},a` })).toEqual(['a', 'ab']);
      expect(await sortedTitles(bob, { tags: `${m},a,b` })).toEqual(['ab']);
      expect(await sortedTitles(bob, { tags: `${m}, b ,` })).toEqual(['ab', 'bc']);
      expect(await sortedTitles(bob, { tags: `${m},a,c` })).toEqual([]);
    });

    it('title: exact, repeatable, OR across values; title_prefix: case-insensitive, % and _ literal', async () => {
      const m = marker();
      for (const title of ['Ice Core', 'Ice core 2', 'Firn', '100% pure', '100x pure', 'a_b', 'axb']) await createAsset(h, bob, { title, tags: [m] });
      expect(await sortedTitles(bob, { tags: m, title: 'Ice Core' })).toEqual(['Ice Core']);
      expect(await sortedTitles(bob, { tags: m, title: 'ice core' })).toEqual([]);
      expect(await sortedTitles(bob, { tags: m, title: 'Ice' })).toEqual([]);
      expect(await sortedTitles(bob, { tags: m, title: ['Ice Core', 'Firn', 'Nope'] })).toEqual(['Firn', 'Ice Core']);
      const prefixes: [string, string[]][] = [
        ['ice', ['Ice Core', 'Ice core 2']],
        ['ICE CORE ', ['Ice core 2']],
        ['f', ['Firn']],
        ['100%', ['100% pure']],
        ['a_', ['a_b']],
        ['%', []],
        ['_', []],
        ['core', []],
      ];
      for (const [title_prefix, titles] of prefixes) expect(await sortedTitles(bob, { tags: m, title_prefix }), title_prefix).toEqual(titles);
      expect(await sortedTitles(bob, { tags: m, title_prefix: 'ice', title: ['Ice core 2', 'Firn'] })).toEqual(['Ice core 2']);
    });

    it('ANDs every parameter together', async () => {
      const m = marker();
      const base = { title: 'Target core', alias: 'tgt', tags: [m, 'x'], record_type: 'dataset', metadata: { site: { name: 'Dome C' }, n: 1 }, owner_type: 'project', owner_id: project.id };
      const lock = (asset: Asset) => write().post(`/api/assets/${asset.id}/lock/`).set(bearer(alice)).send({ locked: true }).expect(200);
      const target = await createAsset(h, alice, base);
      await lock(target);
      // One decoy per condition, each unlike the target in that one thing only.
      await createAsset(h, alice, base);
      const decoys: Record<string, unknown>[] = [
        { tags: [m] },
        { record_type: 'image' },
        { metadata: { site: { name: 'Vostok' }, n: 1 } },
        { metadata: { site: { name: 'Dome C' } } },
        { title: 'Other core' },
        { title: 'Target corE' },
        { alias: 'x', title: 'Target', tags: [m, 'x'] },
        { owner_type: 'user', owner_id: alice.id },
      ];
      for (const decoy of decoys) await lock(await createAsset(h, alice, { ...base, ...decoy }));
      const all = {
        tags: `${m},x`,
        access_scope: 'project',
        locked: 'true',
        metadata: ['site.name:Dome C', 'n'],
        owner_id: project.id,
        owner_type: 'project',
        q: 'CORE',
        record_type: 'dataset,sample',
        title: ['Target core', 'Else'],
        title_prefix: 'target',
        ordering: 'title',
      };
      expect(await listed(alice, { tags: m })).toHaveLength(2 + decoys.length);
      expect((await listed(bob, all)).map((a) => a.id)).toEqual([target.id]);
      expect((await listed(bob, { ...all, collection_id: project.root_collection_id })).map((a) => a.id)).toEqual([]);
    });
  });

  describe('headers of 4.3.2 and cursors', () => {
    it('X-Page-Limit always, X-Has-More true or false, X-Next-Cursor only when more', async () => {
      const m = marker();
      const empty = await list(bob, { tags: m }).expect(200);
      expect(empty.body).toEqual([]);
      expect(empty.headers['x-page-limit']).toBe('100');
      expect(empty.headers['x-has-more']).toBe('false');
      expect(empty.headers['x-next-cursor']).toBeUndefined();
      for (let i = 0; i < 5; i += 1) await createAsset(h, bob, { title: `h${i}`, tags: [m] });
      const first = await list(bob, { tags: m, limit: 2 }).expect(200);
      expect((first.body as Asset[]).map((a) => a.title)).toEqual(['h4', 'h3']);
      expect(first.headers).toMatchObject({ 'x-page-limit': '2', 'x-has-more': 'true', 'x-next-cursor': expect.stringMatching(/^v1\.[\w-]+\.[\w-]+$/) });
      const second = await list(bob, { tags: m, limit: 2, cursor: first.headers['x-next-cursor'] as string }).expect(200);
      expect((second.body as Asset[]).map((a) => a.title)).toEqual(['h2', 'h1']);
      expect(second.headers['x-has-more']).toBe('true');
      const third = await list(bob, { tags: m, limit: 2, cursor: second.headers['x-next-cursor'] as string }).expect(200);
      expect((third.body as Asset[]).map((a) => a.title)).toEqual(['h0']);
      expect(third.headers['x-has-more']).toBe('false');
      expect(third.headers['x-next-cursor']).toBeUndefined();
      // A page that ends exactly at the end says so: no cursor to an empty page.
      const exact = await list(bob, { tags: m, limit: 5 }).expect(200);
      expect(exact.headers['x-has-more']).toBe('false');
      expect(exact.headers['x-next-cursor']).toBeUndefined();
      // The page size may change between pages; the cursor is a position.
      const rest = await list(bob, { tags: m, limit: 100, cursor: first.headers['x-next-cursor'] as string }).expect(200);
      expect((rest.body as Asset[]).map((a) => a.title)).toEqual(['h2', 'h1', 'h0']);
      expect(rest.headers['x-page-limit']).toBe('100');
    });

    it('a tampered, malformed or other-version cursor is 400 invalid_cursor', async () => {
      const m = marker();
      for (let i = 0; i < 3; i += 1) await createAsset(h, bob, { title: `c${i}`, tags: [m] });
      const cursor = (await list(bob, { tags: m, limit: 1 }).expect(200)).headers['x-next-cursor'] as string;
      const [version, payload, signature] = cursor.split('.') as [string, string, string];
      const flip = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
      const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as [number, string, string];
      const forged = Buffer.from(JSON.stringify([decoded[0], '2999-01-01T00:00:00.000000Z', decoded[2]])).toString('base64url');
      const bad = [
        'garbage',
        'v1',
        'v1..',
        `${version}.${payload}`,
        `${cursor}.extra`,
        `${cursor}x`,
        `v2.${payload}.${signature}`,
        `V1.${payload}.${signature}`,
        `${version}.${flip(payload, 3)}.${signature}`,
        `${version}.${payload}.${flip(signature, 0)}`,
        `${version}.${forged}.${signature}`,
        `${version}.${payload}.`,
        `${version}.!!!.${signature}`,
      ];
      for (const value of bad) {
        const res = await list(bob, { tags: m, cursor: value });
        expect(res.status, value).toBe(400);
        expect(res.body, value).toMatchObject({ status: 400, code: 'invalid_cursor', detail: expect.any(String) });
      }
      const overlong = await list(bob, { tags: m, cursor: 'x'.repeat(1001) }).expect(400);
      expect(overlong.body).toMatchObject({ status: 400, code: 'invalid_cursor' });
      // The genuine one still works, for the same caller and for another (a position, not a grant).
      expect((await list(bob, { tags: m, limit: 1, cursor }).expect(200)).body).toHaveLength(1);
      expect((await list(carol, { tags: m, limit: 1, cursor }).expect(200)).body).toEqual([]);
    });

    it('pages a filtered set to the end while assets are being created: none twice, none of the first ones missing', async () => {
      const m = marker();
      const before: Asset[] = [];
      for (let i = 0; i < 24; i += 1) before.push(await createAsset(h, bob, { title: `p${i}`, tags: [m, i % 2 ? 'odd' : 'even'], metadata: { i } }));
      await star(bob, before[3] as Asset);
      await star(bob, before[20] as Asset);
      let creating = true;
      const writer = (async () => {
        const made: Asset[] = [];
        while (creating && made.length < 200) {
          const batch = await Promise.all([0, 1, 2].map((k) => createAsset(h, bob, { title: `new${made.length + k}`, tags: [m, (made.length + k) % 2 ? 'odd' : 'even'] })));
          made.push(...batch);
          if (made.length % 6 === 0) await star(bob, batch[0] as Asset);
        }
        return made;
      })();
      const pages = (async (): Promise<[Asset[], Asset[], Asset[]]> => {
        const all = await everyPage(bob, { tags: m }, 3);
        const even = await everyPage(bob, { tags: `${m},even` }, 2);
        const titled = await everyPage(bob, { tags: m, q: 'p' }, 5);
        creating = false;
        return [all, even, titled];
      })();
      const [made, [all, even, titled]] = await Promise.all([writer, pages]);
      expect(made.length).toBeGreaterThan(0);
      const ids = (assets: Asset[]) => assets.map((a) => a.id);
      for (const run of [all, even, titled]) expect(new Set(ids(run)).size).toBe(run.length);
      expect(ids(all)).toEqual(expect.arrayContaining(ids(before)));
      expect(ids(even)).toEqual(expect.arrayContaining(ids(before.filter((_, i) => i % 2 === 0))));
      expect(ids(titled)).toEqual(expect.arrayContaining(ids(before)));
      expect(even.every((a) => a.tags.includes('even'))).toBe(true);
      // The assets that existed before paging began come in the listing's order.
      const original = new Set(ids(before));
      const starred = new Set([before[3]?.id ?? '', before[20]?.id ?? '']);
      expect(all.filter((a) => original.has(a.id)).map((a) => a.id)).toEqual([...before].sort(listingOrder(starred)).map((a) => a.id));
    });
  });
});
