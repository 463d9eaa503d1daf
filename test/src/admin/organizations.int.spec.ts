import { randomUUID } from 'node:crypto';
import { projectionsRebuild } from '@cairn/cli';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Shape } from '../support/harness.ts';
import { addMember, createNamedUser, type TestUser } from './admin-fixtures.ts';

type Organization = { id: string; name: string; country: string | null; created_at: string; member_count: number; current_user_role: string | null };

describe.each<Shape>(['all', 'split'])('organizations over HTTP (%s)', (shape) => {
  let h: Harness;
  let root: TestUser;
  let ada: TestUser;
  let bob: TestUser;
  const read = () => request(h.queryApp);
  const write = () => request(h.commandApp);
  const create = (body: object, as: TestUser = root) => write().post('/api/organizations/').auth(as.token, { type: 'bearer' }).send(body);

  beforeAll(async () => {
    h = await startHarness(shape);
    root = await createNamedUser(h, { name: 'Root', admin: true });
    ada = await createNamedUser(h, { name: 'Ada' });
    bob = await createNamedUser(h, { name: 'Bob' });
  });
  afterAll(async () => h.close());

  it('creates, reads and changes an organization, reading its own writes at once', async () => {
    const created = await create({ name: '  Example University ', country: 'DE' }).expect(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Example University',
      country: 'DE',
      created_at: expect.stringMatching(/Z$/),
      member_count: 0,
      current_user_role: null,
    });
    expect(created.headers['location']).toBe(`/api/organizations/${created.body.id}/`);
    expect(created.headers['x-consistency-token']).toBeDefined();
    const id: string = created.body.id;
    expect((await read().get(`/api/organizations/${id}/`).auth(root.token, { type: 'bearer' }).expect(200)).body).toEqual(created.body);

    const renamed = await write().patch(`/api/organizations/${id}/`).auth(root.token, { type: 'bearer' }).send({ name: 'Example Univ.' }).expect(200);
    expect(renamed.body).toEqual({ ...created.body, name: 'Example Univ.' });
    const moved = await write().patch(`/api/organizations/${id}/`).auth(root.token, { type: 'bearer' }).type('form').send({ country: 'FR' }).expect(200);
    expect(moved.body.country).toBe('FR');
    const cleared = await write().patch(`/api/organizations/${id}/`).auth(root.token, { type: 'bearer' }).send({ country: null }).expect(200);
    expect(cleared.body).toEqual({ ...created.body, name: 'Example Univ.', country: null });
    const unchanged = await write().patch(`/api/organizations/${id}/`).auth(root.token, { type: 'bearer' }).send({ name: 'Example Univ.', colour: 'red' }).expect(200);
    expect(unchanged.body).toEqual(cleared.body);
    // Nothing was recorded, and the answer still carries a token (of the last event).
    expect(unchanged.headers['x-consistency-token']).toMatch(/^[0-9a-z]+\.[0-9a-z]+(\.[0-9a-z]+)?$/);

    const stream = await h.resources.eventStore.readStream(`organization-${id}`);
    expect(stream.events.map((e) => ({ type: e.type, data: e.data }))).toEqual([
      { type: 'OrganizationCreated', data: { id, name: 'Example University', country: 'DE' } },
      { type: 'OrganizationRenamed', data: { id, name: 'Example Univ.' } },
      { type: 'OrganizationCountryChanged', data: { id, country: 'FR' } },
      { type: 'OrganizationCountryChanged', data: { id, country: null } },
    ]);
    await write().patch(`/api/organizations/${randomUUID()}/`).auth(root.token, { type: 'bearer' }).send({ name: 'x' }).expect(404);
    await read().get(`/api/organizations/${randomUUID()}/`).auth(root.token, { type: 'bearer' }).expect(404);
  });

  it('validates name and country', async () => {
    for (const [body, field] of [
      [{}, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(256) }, 'name'],
      [{ name: 'Lower', country: 'de' }, 'country'],
      [{ name: 'Long', country: 'DEU' }, 'country'],
      [{ name: 'Number', country: 49 }, 'country'],
    ] as const) {
      const res = await create(body).expect(400);
      expect(res.body.code).toBe('validation_error');
      expect(res.body.errors[field]).toEqual(expect.arrayContaining([expect.any(String)]));
    }
    expect((await create({ name: 'x'.repeat(255), country: '' }).expect(201)).body.country).toBeNull();
    const org = (await create({ name: 'Patch Validation' }).expect(201)).body as Organization;
    for (const body of [{ name: '' }, { name: 'y'.repeat(256) }, { country: 'fr' }]) {
      await write().patch(`/api/organizations/${org.id}/`).auth(root.token, { type: 'bearer' }).send(body).expect(400);
    }
  });

  it('lists the caller’s organizations with member counts and roles; every one for a system administrator', async () => {
    const alpha = (await create({ name: 'alpha Listing' }).expect(201)).body as Organization;
    const beta = (await create({ name: 'Beta Listing' }).expect(201)).body as Organization;
    const gamma = (await create({ name: 'Gamma Listing' }).expect(201)).body as Organization;
    await addMember(h, root, ada.id, beta.id, 'admin');
    await addMember(h, root, ada.id, alpha.id);
    await addMember(h, root, bob.id, beta.id);

    const mine = (await read().get('/api/organizations/').auth(ada.token, { type: 'bearer' }).expect(200)).body as Organization[];
    expect(mine.map((o) => [o.name, o.current_user_role, o.member_count])).toEqual([
      ['alpha Listing', 'member', 1],
      ['Beta Listing', 'admin', 2],
    ]);
    const all = (await read().get('/api/organizations/').auth(root.token, { type: 'bearer' }).expect(200)).body as Organization[];
    expect(all.map((o) => o.id)).toEqual(expect.arrayContaining([alpha.id, beta.id, gamma.id]));
    expect(all.every((o) => o.current_user_role === null)).toBe(true);
    const names = all.map((o) => o.name.toLowerCase());
    expect(names).toEqual([...names].sort());

    // Members and system administrators see an organization; anyone else gets 404.
    expect((await read().get(`/api/organizations/${beta.id}/`).auth(bob.token, { type: 'bearer' }).expect(200)).body).toMatchObject({ current_user_role: 'member', member_count: 2 });
    const hidden = await read().get(`/api/organizations/${gamma.id}/`).auth(bob.token, { type: 'bearer' }).expect(404);
    expect(hidden.body.code).toBe('not_found');

    // A system administrator who is also a member sees the role.
    await addMember(h, root, root.id, gamma.id, 'admin');
    expect((await read().get(`/api/organizations/${gamma.id}/`).auth(root.token, { type: 'bearer' }).expect(200)).body.current_user_role).toBe('admin');

    // Leaving hides the organization again.
    await write().delete(`/api/admin/users/${bob.id}/organizations/${beta.id}/`).auth(root.token, { type: 'bearer' }).expect(204);
    await read().get(`/api/organizations/${beta.id}/`).auth(bob.token, { type: 'bearer' }).expect(404);
    expect((await read().get('/api/organizations/').auth(bob.token, { type: 'bearer' }).expect(200)).body).toEqual([]);
  });

  it('lets only system administrators create and change organizations', async () => {
    const org = (await create({ name: 'Guarded' }).expect(201)).body as Organization;
    await addMember(h, root, ada.id, org.id, 'admin');
    expect((await create({ name: 'By Ada' }, ada).expect(403)).body.code).toBe('permission_denied');
    // A member (even its admin) is refused; to a non-member it does not exist.
    expect((await write().patch(`/api/organizations/${org.id}/`).auth(ada.token, { type: 'bearer' }).send({ name: 'Mine' }).expect(403)).body.code).toBe('permission_denied');
    expect((await write().patch(`/api/organizations/${org.id}/`).auth(bob.token, { type: 'bearer' }).send({ name: 'Mine' }).expect(404)).body.code).toBe('not_found');
    expect((await read().get(`/api/organizations/${org.id}/`).auth(root.token, { type: 'bearer' }).expect(200)).body.name).toBe('Guarded');
  });

  it('rebuilds the identity read model from the log to the same rows', async () => {
    // Deactivations, re-roles, removals and re-joins all replay to what was there.
    const org = (await create({ name: 'Rebuilt', country: 'NL' }).expect(201)).body as Organization;
    await addMember(h, root, bob.id, org.id, 'admin');
    await write().patch(`/api/admin/users/${bob.id}/organizations/${org.id}/`).auth(root.token, { type: 'bearer' }).send({ role: 'member' }).expect(200);
    await write().delete(`/api/admin/users/${bob.id}/organizations/${org.id}/`).auth(root.token, { type: 'bearer' }).expect(204);
    await addMember(h, root, bob.id, org.id, 'admin');
    await write().patch(`/api/admin/users/${ada.id}/`).auth(root.token, { type: 'bearer' }).send({ is_active: false, is_system_admin: true }).expect(200);
    await write().patch(`/api/organizations/${org.id}/`).auth(root.token, { type: 'bearer' }).send({ name: 'Rebuilt Twice', country: null }).expect(200);

    const snapshot = async () => ({
      users: (await h.resources.pool.query('select * from users order by id')).rows,
      organizations: (await h.resources.pool.query('select * from organizations order by id')).rows,
      memberships: (await h.resources.pool.query('select * from organization_memberships order by organization_id, user_id')).rows,
    });
    const before = await snapshot();
    expect(before.users.find((u: { id: string }) => u.id === ada.id)).toMatchObject({ is_active: false, is_system_admin: true });
    expect(await projectionsRebuild(h.resources, ['identity'])).toEqual({ rebuilt: ['identity'] });
    expect(await snapshot()).toEqual(before);
  });
});
