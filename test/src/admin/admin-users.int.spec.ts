import { randomUUID } from 'node:crypto';
import { currentVersionOf, eventCatalog, users } from '@cairn/domain';
import { encodePosition, type GlobalPosition } from '@cairn/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from '../support/harness.ts';
import { addMember, createNamedUser, createOrganization, type TestUser } from './admin-fixtures.ts';

type AdminUser = { id: string; name: string; email: string; is_active: boolean; is_system_admin: boolean; organizations: { organization_id: string; name: string; role: string }[] };
type Page = { count: number; next: string | null; previous: string | null; results: AdminUser[] };

describe('admin users over HTTP', () => {
  let h: Harness;
  let root: TestUser;
  const read = () => request(h.queryApp);
  const write = () => request(h.commandApp);
  const list = (query: Record<string, string>) => read().get('/api/admin/users/').query(query).auth(root.token, { type: 'bearer' });

  beforeAll(async () => {
    h = await startHarness('all');
    root = await createNamedUser(h, { name: 'Root Operator', admin: true });
  });
  afterAll(async () => h.close());

  it('answers AdminUserDetail records with memberships and a null last_login', async () => {
    const ada = await createNamedUser(h, { name: 'Ada Detail', email: 'ada.detail@records.example' });
    const org = await createOrganization(h, root, { name: 'Zebra Institute' });
    const other = await createOrganization(h, root, { name: 'alpha Lab' });
    await addMember(h, root, ada.id, org.id, 'admin');
    await addMember(h, root, ada.id, other.id);

    const detail = await read().get(`/api/admin/users/${ada.id}/`).auth(root.token, { type: 'bearer' }).expect(200);
    expect(detail.body).toEqual({
      id: ada.id,
      email: 'ada.detail@records.example',
      name: 'Ada Detail',
      is_active: true,
      is_system_admin: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      last_login: null,
      organizations: [
        { organization_id: other.id, name: 'alpha Lab', role: 'member' },
        { organization_id: org.id, name: 'Zebra Institute', role: 'admin' },
      ],
    });
    const listed = await list({ q: 'records.example' }).expect(200);
    expect(listed.body).toEqual({ count: 1, next: null, previous: null, results: [detail.body] });

    await read().get(`/api/admin/users/${randomUUID()}/`).auth(root.token, { type: 'bearer' }).expect(404);
    await read().get('/api/admin/users/not-a-uuid/').auth(root.token, { type: 'bearer' }).expect(404);
  });

  it('shows the last sign-in as last_login', async () => {
    const kim = await createNamedUser(h, { name: 'Kim Login' });
    const at = '2026-03-04T05:06:07.000Z';
    const { position } = await h.resources.eventStore.appendToStream(
      `sign_in-${kim.id}`,
      [{ id: randomUUID(), type: 'UserSignedIn', schemaVersion: 1, data: { userId: kim.id, method: 'password' }, metadata: { actorId: kim.id, requestId: null, correlationId: randomUUID(), causationId: null, occurredAt: at } }],
      { expectedVersion: 'any' },
    );
    const res = await read().get(`/api/admin/users/${kim.id}/`).auth(root.token, { type: 'bearer' }).set('X-Consistency-Token', encodePosition(position)).expect(200);
    expect(res.body.last_login).toBe(at);
  });

  it('matches q case-insensitively against name and e-mail, literally, ordered by name then id', async () => {
    const made = [
      await createNamedUser(h, { name: 'bravo Search', email: 'b1@search-q.example' }),
      await createNamedUser(h, { name: 'Alpha Search', email: 'a1@search-q.example' }),
      await createNamedUser(h, { name: 'Charlie Search', email: 'c1@search-q.example' }),
      await createNamedUser(h, { name: 'bravo search', email: 'b2@search-q.example' }),
      await createNamedUser(h, { name: 'Delta 100% Sure', email: 'd1@elsewhere.example' }),
    ];
    const byEmail = await list({ q: 'SEARCH-Q.EXAMPLE' }).expect(200);
    const bravos = made.filter((u) => u.name.toLowerCase() === 'bravo search').map((u) => u.id).sort();
    expect(byEmail.body.results.map((u: AdminUser) => u.name.toLowerCase())).toEqual(['alpha search', 'bravo search', 'bravo search', 'charlie search']);
    expect(byEmail.body.results.slice(1, 3).map((u: AdminUser) => u.id)).toEqual(bravos);
    const byName = await list({ q: 'ALPHA sea' }).expect(200);
    expect(byName.body.results.map((u: AdminUser) => u.email)).toEqual(['a1@search-q.example']);
    const literal = await list({ q: '100%' }).expect(200);
    expect(literal.body.results.map((u: AdminUser) => u.name)).toEqual(['Delta 100% Sure']);
    expect((await list({ q: 'search_q' }).expect(200)).body.count).toBe(0);
    // An empty q filters nothing.
    expect((await list({ q: '' }).expect(200)).body.count).toBeGreaterThanOrEqual(made.length + 1);
  });

  it('pages with absolute next and previous links that keep the other parameters', async () => {
    for (let i = 0; i < 7; i += 1) await createNamedUser(h, { name: `Pager ${String.fromCharCode(65 + i)}`, email: `p${i}@paging.example` });
    const first = await list({ q: 'paging.example', page_size: '3', include_deactivated: 'yes' }).expect(200);
    const body = first.body as Page;
    expect(body.count).toBe(7);
    expect(body.results.map((u) => u.name)).toEqual(['Pager A', 'Pager B', 'Pager C']);
    expect(body.previous).toBeNull();
    const next = new URL(body.next ?? '');
    expect(`${next.origin}${next.pathname}`).toBe('http://cairn.test/api/admin/users/');
    expect(Object.fromEntries(next.searchParams)).toEqual({ q: 'paging.example', page_size: '3', include_deactivated: 'yes', page: '2' });

    const second = (await read().get(`${next.pathname}${next.search}`).auth(root.token, { type: 'bearer' }).expect(200)).body as Page;
    expect(second.results.map((u) => u.name)).toEqual(['Pager D', 'Pager E', 'Pager F']);
    expect(Object.fromEntries(new URL(second.previous ?? '').searchParams)).toMatchObject({ page: '1', page_size: '3' });
    expect(Object.fromEntries(new URL(second.next ?? '').searchParams)).toMatchObject({ page: '3' });
    const last = (await list({ q: 'paging.example', page_size: '3', page: '3' }).expect(200)).body as Page;
    expect(last.results.map((u) => u.name)).toEqual(['Pager G']);
    expect(last.next).toBeNull();
    expect(last.previous).not.toBeNull();
  });

  it('answers 404 for a page past the end, but an empty first page', async () => {
    for (const n of [1, 2]) await createNamedUser(h, { name: `Past ${n}`, email: `past${n}@past-end.example` });
    expect(((await list({ q: 'past-end.example', page_size: '1', page: '2' }).expect(200)).body as Page).results.map((u) => u.name)).toEqual(['Past 2']);
    const past = await list({ q: 'past-end.example', page_size: '1', page: '3' }).expect(404);
    expect(past.body).toMatchObject({ status: 404, code: 'not_found' });
    await list({ q: 'past-end.example', page: '2' }).expect(404);
    const empty = await list({ q: 'nobody-matches-this' }).expect(200);
    expect(empty.body).toEqual({ count: 0, next: null, previous: null, results: [] });
    await list({ q: 'nobody-matches-this', page: '2' }).expect(404);
  });

  it('refuses malformed page and page_size with 400 validation_error', async () => {
    for (const [name, value] of [
      ['page', '0'],
      ['page', '-1'],
      ['page', 'abc'],
      ['page', '1.5'],
      ['page', ''],
      ['page_size', '0'],
      ['page_size', 'ten'],
      ['page_size', '2.5'],
    ] as const) {
      const res = await list({ [name]: value }).expect(400);
      expect(res.body.code).toBe('validation_error');
      expect(res.body.errors[name]).toEqual([expect.any(String)]);
    }
  });

  it('defaults page_size to 50 and reduces a larger one to 500', async () => {
    // 505 registrations straight into the log: the read path is what is under test.
    let position: GlobalPosition | null = null;
    const ids = Array.from({ length: 505 }, () => randomUUID());
    for (let i = 0; i < ids.length; i += 25) {
      const results = await Promise.all(
        ids.slice(i, i + 25).map((id, j) => {
          const n = String(i + j).padStart(3, '0');
          const data = { id, email: `bulk${n}@bulk.example`, name: `Bulk ${n}`, isSystemAdmin: false };
          const metadata = { actorId: null, requestId: null, correlationId: id, causationId: null, occurredAt: new Date().toISOString() };
          return h.resources.eventStore.appendToStream(users.userStream(id), [{ id: randomUUID(), type: 'UserRegistered', schemaVersion: currentVersionOf(eventCatalog, 'UserRegistered'), data, metadata }], { expectedVersion: 'none' });
        }),
      );
      for (const r of results) if (!position || r.position.major > position.major || (r.position.major === position.major && r.position.minor > position.minor)) position = r.position;
    }
    const token = encodePosition(position ?? { major: 0n, minor: 0n });
    const byDefault = (await list({ q: 'bulk.example' }).set('X-Consistency-Token', token).expect(200)).body as Page;
    expect(byDefault.count).toBe(505);
    expect(byDefault.results).toHaveLength(50);
    const clamped = (await list({ q: 'bulk.example', page_size: '100000' }).set('X-Consistency-Token', token).expect(200)).body as Page;
    expect(clamped.results).toHaveLength(500);
    expect(clamped.results[0]?.name).toBe('Bulk 000');
    expect(clamped.results[499]?.name).toBe('Bulk 499');
    const rest = (await read().get(new URL(clamped.next ?? '').pathname + new URL(clamped.next ?? '').search).auth(root.token, { type: 'bearer' }).expect(200)).body as Page;
    expect(rest.results.map((u) => u.name)).toEqual(['Bulk 500', 'Bulk 501', 'Bulk 502', 'Bulk 503', 'Bulk 504']);
  });

  it('changes only is_active and is_system_admin, ignoring every other field', async () => {
    const eve = await createNamedUser(h, { name: 'Eve Ignored', email: 'eve@ignored.example' });
    const patched = await write()
      .patch(`/api/admin/users/${eve.id}/`)
      .auth(root.token, { type: 'bearer' })
      .send({ is_system_admin: true, name: 'Mallory', email: 'mallory@evil.example', id: randomUUID(), organizations: [{ organization_id: randomUUID() }] })
      .expect(200);
    expect(patched.body).toMatchObject({ id: eve.id, name: 'Eve Ignored', email: 'eve@ignored.example', is_system_admin: true, is_active: true, organizations: [] });
    expect(patched.headers['x-consistency-token']).toBeDefined();
    const reread = await read().get(`/api/admin/users/${eve.id}/`).auth(root.token, { type: 'bearer' }).expect(200);
    expect(reread.body).toEqual(patched.body);

    // Nothing to change: the same record, no event.
    const unchanged = await write().patch(`/api/admin/users/${eve.id}/`).auth(root.token, { type: 'bearer' }).send({ name: 'only ignored' }).expect(200);
    expect(unchanged.body).toEqual(patched.body);
    // Nothing was recorded, and the answer still carries a token (of the last event).
    expect(unchanged.headers['x-consistency-token']).toMatch(/^[0-9a-z]+\.[0-9a-z]+(\.[0-9a-z]+)?$/);

    const form = await write().patch(`/api/admin/users/${eve.id}/`).auth(root.token, { type: 'bearer' }).type('form').send('is_system_admin=false').expect(200);
    expect(form.body.is_system_admin).toBe(false);
    const bad = await write().patch(`/api/admin/users/${eve.id}/`).auth(root.token, { type: 'bearer' }).send({ is_active: 'maybe' }).expect(400);
    expect(bad.body.errors.is_active).toEqual([expect.any(String)]);
    await write().patch(`/api/admin/users/${randomUUID()}/`).auth(root.token, { type: 'bearer' }).send({ is_active: false }).expect(404);
  });

  it('hides deactivated users unless include_deactivated is true, spelled as a form boolean is; reactivates them', async () => {
    const gone = await createNamedUser(h, { name: 'Gone Soon', email: 'gone@deactivation.example' });
    await createNamedUser(h, { name: 'Stays', email: 'stays@deactivation.example' });
    const deactivated = await write().patch(`/api/admin/users/${gone.id}/`).auth(root.token, { type: 'bearer' }).send({ is_active: false }).expect(200);
    expect(deactivated.body.is_active).toBe(false);

    const names = async (include?: string) =>
      ((await list({ q: 'deactivation.example', ...(include === undefined ? {} : { include_deactivated: include }) }).expect(200)).body as Page).results.map((u) => u.name);
    expect(await names()).toEqual(['Stays']);
    // docs/http.md: the spellings of a form body's boolean, so `on` is true here too.
    for (const truthy of ['true', '1', 'yes', 'on', 'TRUE', 'Yes', 'ON']) expect(await names(truthy)).toEqual(['Gone Soon', 'Stays']);
    for (const falsy of ['false', '0', 'no', 'off', 'OFF']) expect(await names(falsy)).toEqual(['Stays']);
    // Any other text is a mistake to name, not a silent false (DECISIONS §1).
    for (const other of ['maybe', '', '2']) {
      const res = await list({ q: 'deactivation.example', include_deactivated: other }).expect(400);
      expect(res.body).toMatchObject({ code: 'validation_error', errors: { include_deactivated: [expect.stringContaining('Must be true or false')] } });
    }
    // Still readable one by one.
    expect((await read().get(`/api/admin/users/${gone.id}/`).auth(root.token, { type: 'bearer' }).expect(200)).body.is_active).toBe(false);

    await write().patch(`/api/admin/users/${gone.id}/`).auth(root.token, { type: 'bearer' }).send({ is_active: true }).expect(200);
    expect(await names()).toEqual(['Gone Soon', 'Stays']);
  });

  it("refuses a deactivated user's token with 401, and accepts it again after reactivation", async () => {
    const frank = await createNamedUser(h, { name: 'Frank Token' });
    await read().get('/api/organizations/').auth(frank.token, { type: 'bearer' }).expect(200);
    await write().patch(`/api/admin/users/${frank.id}/`).auth(root.token, { type: 'bearer' }).send({ is_active: false }).expect(200);
    // Processes may cache credentials; the refusal must come within moments.
    await vi.waitFor(async () => {
      const res = await read().get('/api/organizations/').auth(frank.token, { type: 'bearer' });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('not_authenticated');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    }, { timeout: 3000, interval: 50 });

    await write().patch(`/api/admin/users/${frank.id}/`).auth(root.token, { type: 'bearer' }).send({ is_active: true }).expect(200);
    await vi.waitFor(async () => {
      expect((await read().get('/api/organizations/').auth(frank.token, { type: 'bearer' })).status).toBe(200);
    }, { timeout: 3000, interval: 50 });
  });

  it('adds, re-roles and removes organization memberships', async () => {
    const gus = await createNamedUser(h, { name: 'Gus Member' });
    const org = await createOrganization(h, root, { name: 'Membership Org' });
    const detail = async () => (await read().get(`/api/admin/users/${gus.id}/`).auth(root.token, { type: 'bearer' }).expect(200)).body as AdminUser;
    const orgAs = async () => (await read().get(`/api/organizations/${org.id}/`).auth(root.token, { type: 'bearer' }).expect(200)).body as { member_count: number };

    const added = await write().post(`/api/admin/users/${gus.id}/organizations/`).auth(root.token, { type: 'bearer' }).send({ organization_id: org.id }).expect(201);
    expect(added.text).toBe('');
    expect((await detail()).organizations).toEqual([{ organization_id: org.id, name: 'Membership Org', role: 'member' }]);
    expect((await orgAs()).member_count).toBe(1);

    const again = await write().post(`/api/admin/users/${gus.id}/organizations/`).auth(root.token, { type: 'bearer' }).send({ organization_id: org.id, role: 'admin' }).expect(409);
    expect(again.body).toMatchObject({ status: 409, code: 'already_member' });

    const changed = await write().patch(`/api/admin/users/${gus.id}/organizations/${org.id}/`).auth(root.token, { type: 'bearer' }).send({ role: 'admin' }).expect(200);
    expect(changed.text).toBe('');
    expect((await detail()).organizations[0]?.role).toBe('admin');
    await write().patch(`/api/admin/users/${gus.id}/organizations/${org.id}/`).auth(root.token, { type: 'bearer' }).type('form').send('role=member').expect(200);
    expect((await detail()).organizations[0]?.role).toBe('member');

    const removed = await write().delete(`/api/admin/users/${gus.id}/organizations/${org.id}/`).auth(root.token, { type: 'bearer' }).expect(204);
    expect(removed.text).toBe('');
    expect((await detail()).organizations).toEqual([]);
    expect((await orgAs()).member_count).toBe(0);
    await write().delete(`/api/admin/users/${gus.id}/organizations/${org.id}/`).auth(root.token, { type: 'bearer' }).expect(404);
    await write().patch(`/api/admin/users/${gus.id}/organizations/${org.id}/`).auth(root.token, { type: 'bearer' }).send({ role: 'admin' }).expect(404);
    // Members may join again after leaving.
    await write().post(`/api/admin/users/${gus.id}/organizations/`).auth(root.token, { type: 'bearer' }).type('form').send({ organization_id: org.id, role: 'admin' }).expect(201);
    expect((await detail()).organizations[0]?.role).toBe('admin');
  });

  it('describes its operations with the schema names of interface 2.6', async () => {
    const doc = (await read().get('/api/schema/').expect(200)).body;
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    expect(doc.paths['/api/admin/users/{id}/'].get.responses['200'].content['application/json'].schema).toEqual(ref('AdminUserDetail'));
    expect(doc.paths['/api/admin/users/{id}/'].patch.requestBody.content['application/json'].schema).toEqual(ref('AdminUserPatch'));
    expect(doc.paths['/api/admin/users/{id}/organizations/'].post.requestBody.content['application/json'].schema).toEqual(ref('AdminUserOrgAdd'));
    expect(doc.paths['/api/admin/users/{id}/organizations/{org_pk}/'].patch.requestBody.content['application/json'].schema).toEqual(ref('AdminUserOrgRole'));
    expect(doc.components.schemas.AdminUserOrgAdd.required).toEqual(['organization_id']);
    expect(doc.components.schemas.AdminUserOrgAdd.properties.role.default).toBe('member');
    expect(doc.paths['/api/admin/users/'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['q', 'include_deactivated', 'page', 'page_size', 'X-Consistency-Token']);
  });

  it('records membership events in the shapes other read models consume', async () => {
    const hal = await createNamedUser(h, { name: 'Hal Events' });
    const org = await createOrganization(h, root);
    await addMember(h, root, hal.id, org.id);
    await write().patch(`/api/admin/users/${hal.id}/organizations/${org.id}/`).auth(root.token, { type: 'bearer' }).send({ role: 'admin' }).expect(200);
    await write().delete(`/api/admin/users/${hal.id}/organizations/${org.id}/`).auth(root.token, { type: 'bearer' }).expect(204);
    const stream = await h.resources.eventStore.readStream(`organization-${org.id}`);
    expect(stream.events.map((e) => ({ type: e.type, data: e.data }))).toEqual([
      { type: 'OrganizationCreated', data: { id: org.id, name: org.name, country: null } },
      { type: 'OrganizationMemberAdded', data: { organizationId: org.id, userId: hal.id, role: 'member' } },
      { type: 'OrganizationMemberRoleChanged', data: { organizationId: org.id, userId: hal.id, role: 'admin' } },
      { type: 'OrganizationMemberRemoved', data: { organizationId: org.id, userId: hal.id } },
    ]);
    expect(stream.events[1]?.metadata.actorId).toBe(root.id);
  });

  it('answers 404 for unknown users, organizations and memberships, 400 for bad bodies', async () => {
    const ivy = await createNamedUser(h, { name: 'Ivy Errors' });
    const org = await createOrganization(h, root);
    const post = (userId: string, body: object) => write().post(`/api/admin/users/${userId}/organizations/`).auth(root.token, { type: 'bearer' }).send(body);
    expect((await post(randomUUID(), { organization_id: org.id }).expect(404)).body.code).toBe('not_found');
    expect((await post(ivy.id, { organization_id: randomUUID() }).expect(404)).body.code).toBe('not_found');
    for (const [body, field] of [
      [{}, 'organization_id'],
      [{ organization_id: 'nope' }, 'organization_id'],
      [{ organization_id: org.id, role: 'owner' }, 'role'],
      [{ organization_id: org.id, role: null }, 'role'],
    ] as const) {
      const res = await post(ivy.id, body).expect(400);
      expect(res.body.code).toBe('validation_error');
      expect(res.body.errors[field]).toEqual(expect.arrayContaining([expect.any(String)]));
    }
    const noBody = await write().post(`/api/admin/users/${ivy.id}/organizations/`).auth(root.token, { type: 'bearer' }).expect(400);
    expect(noBody.body.code).toBe('validation_error');
    const badRole = await write().patch(`/api/admin/users/${ivy.id}/organizations/${org.id}/`).auth(root.token, { type: 'bearer' }).send({ role: 'boss' }).expect(400);
    expect(badRole.body.errors.role).toEqual([expect.any(String)]);
    await write().patch(`/api/admin/users/${ivy.id}/organizations/${org.id}/`).auth(root.token, { type: 'bearer' }).send({}).expect(404);
    await write().delete(`/api/admin/users/${ivy.id}/organizations/${randomUUID()}/`).auth(root.token, { type: 'bearer' }).expect(404);
    await write().delete(`/api/admin/users/${ivy.id}/organizations/not-a-uuid/`).auth(root.token, { type: 'bearer' }).expect(404);
    // A PATCH without a role changes nothing for a member.
    await addMember(h, root, ivy.id, org.id, 'admin');
    await write().patch(`/api/admin/users/${ivy.id}/organizations/${org.id}/`).auth(root.token, { type: 'bearer' }).send({}).expect(200);
    expect((await read().get(`/api/admin/users/${ivy.id}/`).auth(root.token, { type: 'bearer' }).expect(200)).body.organizations[0].role).toBe('admin');
  });
});
