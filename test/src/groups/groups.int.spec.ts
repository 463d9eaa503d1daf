import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type Group, type User, uuidPattern } from '../support/api.ts';
import { startHarness, type Harness, type Shape } from '../support/harness.ts';
import {
  addToGroup,
  createGroup,
  expectExactMemberCounts,
  getGroup,
  join,
  memberIds,
  newUser,
  organizationWith,
  patientReads,
  sorted,
} from './groups-fixtures.ts';

describe.each<Shape>(['all', 'split'])('custom groups over HTTP (%s)', (shape) => {
  let h: Harness;
  let org: Awaited<ReturnType<typeof organizationWith>>;
  const write = () => request(h.commandApp);
  const read = () => request(h.queryApp);

  beforeAll(async () => {
    h = await startHarness(shape, patientReads);
    org = await organizationWith(h, 'Acme Lab');
  });
  afterAll(async () => h.close());

  it('creates, reads, renames, describes and deletes a custom group, reading its own writes', async () => {
    const created = await write()
      .post('/api/groups/')
      .set(bearer(org.admin))
      .send({ organization_id: org.id, name: '  Curators ', description: 'People who curate' })
      .expect(201);
    const group = created.body as Group;
    expect(group).toEqual({
      id: expect.stringMatching(uuidPattern),
      organization_id: org.id,
      name: 'Curators',
      description: 'People who curate',
      type: 'custom',
      created_at: expect.any(String),
      updated_at: group.created_at,
      member_count: 0,
    });
    expect(new Date(group.created_at).toISOString()).toBe(group.created_at);
    expect(created.headers['location']).toBe(`/api/groups/${group.id}/`);
    expect(created.headers['x-consistency-token']).toMatch(/^[0-9a-z]+\.[0-9a-z]+(\.[0-9a-z]+)?$/);

    expect(await getGroup(h, org.member, group.id)).toEqual(group);

    const renamed = await write().patch(`/api/groups/${group.id}/`).set(bearer(org.admin)).send({ name: 'Data Curators' }).expect(200);
    expect(renamed.body).toMatchObject({ id: group.id, name: 'Data Curators', description: 'People who curate', created_at: group.created_at });
    expect(renamed.body.updated_at >= group.updated_at).toBe(true);
    const described = await write().patch(`/api/groups/${group.id}/`).set(bearer(org.admin)).type('form').send({ description: '' }).expect(200);
    expect(described.body).toMatchObject({ name: 'Data Curators', description: '' });
    const both = await write().patch(`/api/groups/${group.id}/`).set(bearer(org.admin)).field('name', 'Stewards').field('description', 'Both at once').expect(200);
    expect(both.body).toMatchObject({ name: 'Stewards', description: 'Both at once' });
    const unchanged = await write().patch(`/api/groups/${group.id}/`).set(bearer(org.admin)).send({}).expect(200);
    expect(unchanged.body).toEqual(both.body);
    // Nothing was recorded, and the answer still carries a token (of the last event).
    expect(unchanged.headers['x-consistency-token']).toMatch(/^[0-9a-z]+\.[0-9a-z]+(\.[0-9a-z]+)?$/);
    expect(await getGroup(h, org.member, group.id)).toEqual(both.body);

    const deleted = await write().delete(`/api/groups/${group.id}/`).set(bearer(org.admin)).expect(204);
    expect(deleted.text).toBe('');
    await read().get(`/api/groups/${group.id}/`).set(bearer(org.admin)).expect(404);
    await read().get(`/api/groups/${group.id}/members/`).set(bearer(org.admin)).expect(404);
    await write().patch(`/api/groups/${group.id}/`).set(bearer(org.admin)).send({ name: 'x' }).expect(404);
    await write().delete(`/api/groups/${group.id}/`).set(bearer(org.admin)).expect(404);
    await write().post(`/api/groups/${group.id}/members/`).set(bearer(org.admin)).send({ user_id: org.member.id }).expect(404);
    const listed = await read().get('/api/groups/').set(bearer(org.admin)).expect(200);
    expect((listed.body as Group[]).map((g) => g.id)).not.toContain(group.id);
  });

  it('adds, lists and removes members of a custom group, keeping member_count exact', async () => {
    const group = await createGroup(h, org.admin, org.id, 'Reviewers');
    const added = await write().post(`/api/groups/${group.id}/members/`).set(bearer(org.admin)).send({ user_id: org.member.id }).expect(201);
    expect(added.body).toEqual({ id: org.member.id, email: org.member.email, name: expect.any(String) });
    expect(added.headers['x-consistency-token']).toMatch(/\./);
    await write().post(`/api/groups/${group.id}/members/`).set(bearer(org.admin)).type('form').send({ user_id: org.admin.id }).expect(201);

    const members = await read().get(`/api/groups/${group.id}/members/`).set(bearer(org.member)).expect(200);
    expect(members.body).toHaveLength(2);
    expect(sorted(members.body.map((m: { id: string }) => m.id))).toEqual(sorted([org.admin.id, org.member.id]));
    for (const m of members.body as { id: string; email: string; name: string }[]) expect(Object.keys(m).sort()).toEqual(['email', 'id', 'name']);
    const names = (members.body as { name: string }[]).map((m) => m.name.toLowerCase());
    expect(names).toEqual([...names].sort());
    expect((await getGroup(h, org.member, group.id)).member_count).toBe(2);

    const again = await write().post(`/api/groups/${group.id}/members/`).set(bearer(org.admin)).send({ user_id: org.member.id }).expect(409);
    expect(again.body).toMatchObject({ status: 409, code: 'already_member' });

    await write().delete(`/api/groups/${group.id}/members/${org.member.id}/`).set(bearer(org.admin)).expect(204);
    expect(await memberIds(h, org.admin, group.id)).toEqual([org.admin.id]);
    expect((await getGroup(h, org.admin, group.id)).member_count).toBe(1);
    const twice = await write().delete(`/api/groups/${group.id}/members/${org.member.id}/`).set(bearer(org.admin)).expect(404);
    expect(twice.body.code).toBe('not_found');
    await write().delete(`/api/groups/${group.id}/members/${org.member.id.toUpperCase()}/`).set(bearer(org.admin)).expect(404);
    await write().delete(`/api/groups/${group.id}/members/not-a-uuid/`).set(bearer(org.admin)).expect(404);
    await expectExactMemberCounts(h);
  });

  it('adds only members of the group\'s organization: others and unknown ids get the same 404 on user_id', async () => {
    const group = await createGroup(h, org.admin, org.id, 'Insiders');
    const stranger = await newUser(h);
    const other = await organizationWith(h, 'Elsewhere');
    for (const userId of [stranger.id, other.member.id, '6f1c2d9e-0000-4000-8000-000000000000']) {
      const res = await write().post(`/api/groups/${group.id}/members/`).set(bearer(org.admin)).send({ user_id: userId }).expect(404);
      expect(res.body).toEqual({ status: 404, code: 'not_found', detail: expect.any(String), errors: { user_id: ['Not found.'] } });
    }
    await join(h, org.id, stranger);
    await addToGroup(h, org.admin, group.id, stranger.id);
    expect(await memberIds(h, org.admin, group.id)).toEqual([stranger.id]);
  });

  it('validates bodies with field errors', async () => {
    const group = await createGroup(h, org.admin, org.id, 'Valid');
    const creates: [unknown, string][] = [
      [{ name: 'No organization' }, 'organization_id'],
      [{ organization_id: 'not-a-uuid', name: 'x' }, 'organization_id'],
      [{ organization_id: org.id }, 'name'],
      [{ organization_id: org.id, name: '   ' }, 'name'],
      [{ organization_id: org.id, name: 'x'.repeat(256) }, 'name'],
      [{ organization_id: org.id, name: 'x', description: 'd'.repeat(2001) }, 'description'],
      [{ organization_id: org.id, name: 42 }, 'name'],
    ];
    for (const [body, field] of creates) {
      const res = await write().post('/api/groups/').set(bearer(org.admin)).send(body as object).expect(400);
      expect(res.body).toMatchObject({ status: 400, code: 'validation_error' });
      expect(res.body.errors[field]).toEqual(expect.arrayContaining([expect.any(String)]));
    }
    await write().post('/api/groups/').set(bearer(org.admin)).expect(400);
    const longest = await write().post('/api/groups/').set(bearer(org.admin)).send({ organization_id: org.id, name: 'n'.repeat(255) }).expect(201);
    expect(longest.body.name).toHaveLength(255);

    for (const [body, field] of [[{ name: '' }, 'name'], [{ name: 'y'.repeat(256) }, 'name'], [{ name: null }, 'name']] as const) {
      const res = await write().patch(`/api/groups/${group.id}/`).set(bearer(org.admin)).send(body).expect(400);
      expect(res.body.errors[field]).toBeDefined();
    }
    for (const body of [{}, { user_id: 'nope' }]) {
      const res = await write().post(`/api/groups/${group.id}/members/`).set(bearer(org.admin)).send(body).expect(400);
      expect(res.body.errors['user_id']).toBeDefined();
    }
  });

  it('answers an organization the caller cannot see like an unknown one, as project creation does: 404 on organization_id', async () => {
    const other = await organizationWith(h, 'Hidden Org');
    const unknown = '6f1c2d9e-0000-4000-8000-000000000000';
    const systemAdmin = await newUser(h, { admin: true });
    const attempts: [User, string][] = [
      [org.admin, other.id],
      [org.admin, unknown],
      [systemAdmin, unknown],
    ];
    const answers = [];
    for (const [caller, organizationId] of attempts) {
      const res = await write().post('/api/groups/').set(bearer(caller)).send({ organization_id: organizationId, name: 'Sneaky' }).expect(404);
      expect(res.body).toEqual({ status: 404, code: 'not_found', detail: expect.any(String), errors: { organization_id: ['Not found.'] } });
      answers.push(res.body);
    }
    // The same answer, word for word, as the project and country-set creations give.
    const project = await write().post('/api/projects/').set(bearer(org.admin)).send({ organization_id: other.id, name: 'Sneaky' }).expect(404);
    for (const answer of answers) expect(answer).toEqual(project.body);
  });

  it('answers malformed ids 404 and wrong methods 405', async () => {
    await read().get('/api/groups/not-a-uuid/').set(bearer(org.admin)).expect(404);
    await read().get('/api/groups/6f1c2d9e-0000-4000-8000-000000000000/').set(bearer(org.admin)).expect(404);
    await read().get('/api/groups/6f1c2d9e-0000-4000-8000-000000000000/members/').set(bearer(org.admin)).expect(404);
    const put = await write().put(`/api/groups/${org.membersGroupId}/`).set(bearer(org.admin)).send({}).expect(405);
    expect(put.body.code).toBe('method_not_allowed');
  });
});

describe('group list filters', () => {
  let h: Harness;
  let acme: Awaited<ReturnType<typeof organizationWith>>;
  let beta: Awaited<ReturnType<typeof organizationWith>>;
  let both: User;
  let root: User;
  const list = (caller: User, query: Record<string, string> = {}) => request(h.queryApp).get('/api/groups/').query(query).set(bearer(caller));
  const names = (body: Group[]) => body.map((g) => g.name);

  beforeAll(async () => {
    h = await startHarness('all', patientReads);
    root = await newUser(h, { admin: true });
    acme = await organizationWith(h, 'Acme');
    beta = await organizationWith(h, 'Beta');
    both = await newUser(h);
    await join(h, acme.id, both);
    await join(h, beta.id, both);
    const curators = await createGroup(h, acme.admin, acme.id, 'Curators');
    await createGroup(h, acme.admin, acme.id, 'Data_Stewards 100%');
    const betaCurators = await createGroup(h, beta.admin, beta.id, 'Beta Curators');
    await addToGroup(h, acme.admin, curators.id, acme.member.id);
    await addToGroup(h, acme.admin, curators.id, both.id);
    await addToGroup(h, beta.admin, betaCurators.id, both.id);
  });
  afterAll(async () => h.close());

  it('lists the groups of the caller\'s organizations, ordered by name; everything for a system administrator', async () => {
    expect(names((await list(acme.member).expect(200)).body)).toEqual(['Acme members', 'Curators', 'Data_Stewards 100%']);
    expect(names((await list(both).expect(200)).body)).toEqual(['Acme members', 'Beta Curators', 'Beta members', 'Curators', 'Data_Stewards 100%']);
    expect(names((await list(root).expect(200)).body)).toEqual(['Acme members', 'Beta Curators', 'Beta members', 'Curators', 'Data_Stewards 100%']);
    const loner = await newUser(h);
    expect((await list(loner).expect(200)).body).toEqual([]);
  });

  it('filters by a case-insensitive substring of the name, with % and _ taken literally', async () => {
    expect(names((await list(both, { q: 'CURA' }).expect(200)).body)).toEqual(['Beta Curators', 'Curators']);
    expect(names((await list(acme.member, { q: 'cura' }).expect(200)).body)).toEqual(['Curators']);
    expect(names((await list(root, { q: '100%' }).expect(200)).body)).toEqual(['Data_Stewards 100%']);
    expect(names((await list(root, { q: 'a_s' }).expect(200)).body)).toEqual(['Data_Stewards 100%']);
    expect((await list(root, { q: '%' }).expect(200)).body).toHaveLength(1);
    expect((await list(root, { q: 'nothing like it' }).expect(200)).body).toEqual([]);
    expect((await list(root, { q: '' }).expect(200)).body).toHaveLength(5);
  });

  it('filters by the groups a user is a member of: an id, or me', async () => {
    expect(names((await list(acme.member, { user: 'me' }).expect(200)).body)).toEqual(['Acme members', 'Curators']);
    expect(names((await list(both, { user: 'me' }).expect(200)).body)).toEqual(['Acme members', 'Beta Curators', 'Beta members', 'Curators']);
    // Only what the caller may see of another user's groups.
    expect(names((await list(acme.member, { user: both.id }).expect(200)).body)).toEqual(['Acme members', 'Curators']);
    expect(names((await list(root, { user: both.id.toUpperCase() }).expect(200)).body)).toEqual(['Acme members', 'Beta Curators', 'Beta members', 'Curators']);
    expect((await list(root, { user: 'me' }).expect(200)).body).toEqual([]);
    expect((await list(root, { user: '6f1c2d9e-0000-4000-8000-000000000000' }).expect(200)).body).toEqual([]);
    expect(names((await list(both, { user: 'me', q: 'beta' }).expect(200)).body)).toEqual(['Beta Curators', 'Beta members']);
  });

  it('refuses a malformed user filter with 400', async () => {
    for (const user of ['not-a-uuid', 'ME', '']) {
      const res = await list(root, { user }).expect(400);
      expect(res.body).toMatchObject({ status: 400, code: 'validation_error' });
      expect(res.body.errors['user']).toBeDefined();
    }
    const repeated = await request(h.queryApp).get('/api/groups/?user=me&user=me').set(bearer(root)).expect(400);
    expect(repeated.body.errors['user']).toBeDefined();
  });

  it('counts members exactly, as the member lists show them', async () => {
    const groups = (await list(root).expect(200)).body as Group[];
    expect(Object.fromEntries(groups.map((g) => [g.name, g.member_count]))).toEqual({
      'Acme members': 3,
      'Beta members': 3,
      Curators: 2,
      'Beta Curators': 1,
      'Data_Stewards 100%': 0,
    });
    for (const group of groups) expect((await memberIds(h, root, group.id)).length).toBe(group.member_count);
    await expectExactMemberCounts(h);
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await request(h.queryApp).get('/api/schema/').expect(200)).body;
    expect(Object.keys(doc.paths['/api/groups/']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/groups/{id}/']).sort()).toEqual(['delete', 'get', 'patch']);
    expect(Object.keys(doc.paths['/api/groups/{id}/members/']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/groups/{id}/members/{user_id}/'])).toEqual(['delete']);
    expect(doc.paths['/api/groups/'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['user', 'q', 'X-Consistency-Token']);
    expect(Object.keys(doc.components.schemas.Group.properties).sort()).toEqual(['created_at', 'description', 'id', 'member_count', 'name', 'organization_id', 'type', 'updated_at']);
    expect(doc.components.schemas.PatchedGroup.properties.name.maxLength).toBe(255);
  });

  it('serves every filter from an index', async () => {
    // Planner choices on tiny tables are not meaningful: forbid sequential scans to see that an index can serve each query.
    const client = await h.resources.pool.connect();
    try {
      await client.query('begin');
      await client.query('set local enable_seqscan = off');
      const plans: string[] = [];
      for (const query of [
        `select id from groups where organization_id in (select organization_id from organization_memberships where user_id = '${both.id}') order by lower(name), id`,
        `select id from groups where id in (select group_id from group_members where user_id = '${both.id}')`,
        `select id from groups where lower(name) like '%cura%'`,
      ]) {
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain ${query}`);
        plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
      }
      await client.query('rollback');
      expect(plans[0]).toMatch(/groups_organization|groups_name_order/);
      expect(plans[1]).toMatch(/group_members_user/);
      expect(plans[2]).toMatch(/groups_name_search/);
    } finally {
      client.release();
    }
  });
});
