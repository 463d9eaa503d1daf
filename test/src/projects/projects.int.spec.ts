import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type Project, type User, uuidPattern } from '../support/api.ts';
import { startHarness, type Harness, type Shape } from '../support/harness.ts';
import { addMember, createCountrySet, createProject, flags, join, organization, projectWorld } from './projects-fixtures.ts';

describe.each<Shape>(['all', 'split'])('projects over HTTP (%s)', (shape) => {
  let h: Harness;
  let world: Awaited<ReturnType<typeof projectWorld>>;
  const write = () => request(h.commandApp);
  const read = () => request(h.queryApp);
  const getProject = async (caller: User, id: string) => (await read().get(`/api/projects/${id}/`).set(bearer(caller)).expect(200)).body as Project;

  beforeAll(async () => {
    h = await startHarness(shape);
    world = await projectWorld(h);
  });
  afterAll(async () => h.close());

  it('creates a project with its creator as admin and owner and a root collection, reading its own writes', async () => {
    const { organizationId, projectAdmin } = world;
    const created = await write()
      .post('/api/projects/')
      .set(bearer(projectAdmin))
      .send({ name: '  Ice Cores ', description: 'Drilling campaign', organization_id: organizationId })
      .expect(201);
    const project = created.body as Project;
    expect(project).toEqual({
      id: expect.stringMatching(uuidPattern),
      name: 'Ice Cores',
      description: 'Drilling campaign',
      organization_id: organizationId,
      owner_id: projectAdmin.id,
      created_at: expect.any(String),
      updated_at: project.created_at,
      member_count: 1,
      root_collection_id: expect.stringMatching(uuidPattern),
      effective_flags: 511,
      is_starred: false,
      access_scope: 'direct',
      current_user_role: 'admin',
      geobound_enabled: false,
      geobound_basis: 'ip',
      geobound_allowed_countries: [],
      geobound_allowed_country_set: null,
      geobound_denied_country_set: null,
      geobound_block_vpn: false,
      geobound_fail_closed: true,
    });
    expect(new Date(project.created_at).toISOString()).toBe(project.created_at);
    expect(created.headers['location']).toBe(`/api/projects/${project.id}/`);
    expect(created.headers['x-consistency-token']).toMatch(/^[0-9a-z]+\.[0-9a-z]+\.[0-9a-z]+$/);
    expect(await getProject(projectAdmin, project.id)).toEqual(project);

    // The events: the project, its first admin, and its root collection on a stream of its own.
    const stream = await h.resources.eventStore.readStream(`project-${project.id}`);
    expect(stream.events.map((e) => e.type)).toEqual(['ProjectCreated', 'ProjectMemberAdded']);
    expect(stream.events[0]?.data).toMatchObject({ id: project.id, organizationId, ownerId: projectAdmin.id, rootCollectionId: project.root_collection_id, name: 'Ice Cores' });
    expect(stream.events[1]?.data).toEqual({ projectId: project.id, userId: projectAdmin.id, role: 'admin' });
    const root = await h.resources.eventStore.readStream(`collection-${project.root_collection_id}`);
    expect(root.events.map((e) => e.type)).toEqual(['CollectionCreated']);
    const { rows } = await h.resources.pool.query('select title, owner_type, owner_project_id, owner_user_id, is_root, parent_id, parent_ids from collections where id = $1', [project.root_collection_id]);
    expect(rows).toEqual([{ title: 'Ice Cores', owner_type: 'project', owner_project_id: project.id, owner_user_id: null, is_root: true, parent_id: null, parent_ids: [] }]);
  });

  it('accepts form-encoded and multipart bodies', async () => {
    const { organizationId, projectAdmin } = world;
    const form = await write().post('/api/projects/').set(bearer(projectAdmin)).type('form').send({ name: 'Form Project', organization_id: organizationId }).expect(201);
    expect(form.body).toMatchObject({ name: 'Form Project', description: '' });
    const patched = await write()
      .patch(`/api/projects/${form.body.id}/`)
      .set(bearer(projectAdmin))
      .type('form')
      .send('geobound_enabled=true&geobound_allowed_countries=DE&geobound_allowed_countries=AT&geobound_block_vpn=on&geobound_fail_closed=off');
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ geobound_enabled: true, geobound_allowed_countries: ['AT', 'DE'], geobound_block_vpn: true, geobound_fail_closed: false });
    const multipart = await write().patch(`/api/projects/${form.body.id}/`).set(bearer(projectAdmin)).field('geobound_enabled', 'false').field('geobound_allowed_countries', '').expect(200);
    expect(multipart.body).toMatchObject({ geobound_enabled: false, geobound_allowed_countries: [] });
  });

  it('changes name, description and every geobound field, recording only what changes', async () => {
    const { organizationId, projectAdmin, organizationAdmin } = world;
    const project = await createProject(h, projectAdmin, organizationId, 'Moraine Mapping');
    const allowedSet = await createCountrySet(h, organizationAdmin, organizationId, 'EU core', 'allowed', ['FR', 'DE']);
    const deniedSet = await createCountrySet(h, organizationAdmin, organizationId, 'Embargoed', 'denied', ['KP']);
    const change = {
      name: 'Moraine Mapping II',
      description: 'Second season',
      geobound_basis: 'ip_and_affiliation',
      geobound_allowed_countries: ['NO', 'CH', 'NO'],
      geobound_allowed_country_set: allowedSet.id,
      geobound_denied_country_set: deniedSet.id,
      geobound_block_vpn: true,
      geobound_fail_closed: false,
    };
    const patched = await write().patch(`/api/projects/${project.id}/`).set(bearer(projectAdmin)).send(change).expect(200);
    expect(patched.body).toEqual({ ...project, ...change, geobound_allowed_countries: ['CH', 'NO'], updated_at: expect.any(String) });
    expect(patched.body.updated_at >= project.updated_at).toBe(true);
    expect(await getProject(projectAdmin, project.id)).toEqual(patched.body);

    const unchanged = await write().patch(`/api/projects/${project.id}/`).set(bearer(projectAdmin)).send({ name: 'Moraine Mapping II', geobound_allowed_countries: ['NO', 'CH'] }).expect(200);
    expect(unchanged.body).toEqual(patched.body);
    // Nothing was recorded, and the answer still carries a token (of the last event).
    expect(unchanged.headers['x-consistency-token']).toMatch(/^[0-9a-z]+\.[0-9a-z]+(\.[0-9a-z]+)?$/);

    const cleared = await write()
      .patch(`/api/projects/${project.id}/`)
      .set(bearer(projectAdmin))
      .send({ geobound_allowed_country_set: null, geobound_denied_country_set: null, description: null })
      .expect(200);
    expect(cleared.body).toMatchObject({ geobound_allowed_country_set: null, geobound_denied_country_set: null, description: '' });

    const stream = await h.resources.eventStore.readStream(`project-${project.id}`);
    expect(stream.events.map((e) => e.type)).toEqual(['ProjectCreated', 'ProjectMemberAdded', 'ProjectUpdated', 'ProjectUpdated']);
    expect(stream.events[3]?.data).toEqual({ id: project.id, changes: { description: '', geoboundAllowedCountrySetId: null, geoboundDeniedCountrySetId: null } });
  });

  it('refuses invalid fields with 400 validation_error naming each field', async () => {
    const { organizationId, projectAdmin, project } = world;
    const bad = async (body: Record<string, unknown>, field: string) => {
      const res = await write().patch(`/api/projects/${project.id}/`).set(bearer(projectAdmin)).send(body).expect(400);
      expect(res.body.code).toBe('validation_error');
      expect(Object.keys(res.body.errors)).toContain(field);
    };
    await bad({ name: 'x'.repeat(256) }, 'name');
    await bad({ name: '   ' }, 'name');
    await bad({ geobound_basis: 'gps' }, 'geobound_basis');
    await bad({ geobound_allowed_countries: ['de'] }, 'geobound_allowed_countries.0');
    await bad({ geobound_allowed_countries: ['DE', 'DEU'] }, 'geobound_allowed_countries.1');
    await bad({ geobound_allowed_countries: 'DE' }, 'geobound_allowed_countries');
    await bad({ geobound_enabled: 'maybe' }, 'geobound_enabled');
    await bad({ geobound_allowed_country_set: 'not-a-uuid' }, 'geobound_allowed_country_set');

    // References must name an existing set of the project's organization (404 naming the
    // field, for a missing set and another organization's alike), of the right kind (400).
    const unknownSet = async (body: Record<string, unknown>, field: string) => {
      const res = await write().patch(`/api/projects/${project.id}/`).set(bearer(projectAdmin)).send(body).expect(404);
      expect(res.body).toEqual({ status: 404, code: 'not_found', detail: expect.any(String), errors: { [field]: ['Not found.'] } });
      return res.body as unknown;
    };
    const missing = await unknownSet({ geobound_allowed_country_set: '3f1c2d9e-1111-4000-8000-000000000001' }, 'geobound_allowed_country_set');
    const otherOrganization = await organization(h, 'Elsewhere');
    const outsiderAdmin = await h.createUser();
    await join(h, otherOrganization, outsiderAdmin, 'admin');
    const foreignSet = await createCountrySet(h, outsiderAdmin, otherOrganization, 'Foreign', 'allowed', ['DE']);
    expect(await unknownSet({ geobound_allowed_country_set: foreignSet.id }, 'geobound_allowed_country_set')).toEqual(missing);
    const deniedSet = await createCountrySet(h, world.organizationAdmin, organizationId, 'Denied kind', 'denied', ['RU']);
    await bad({ geobound_allowed_country_set: deniedSet.id }, 'geobound_allowed_country_set');
    const allowedSet = await createCountrySet(h, world.organizationAdmin, organizationId, 'Allowed kind', 'allowed', ['DE']);
    await bad({ geobound_denied_country_set: allowedSet.id }, 'geobound_denied_country_set');
    // Nothing of it was stored.
    expect((await getProject(projectAdmin, project.id)).geobound_allowed_country_set).toBeNull();

    const create = async (body: Record<string, unknown>, field: string) => {
      const res = await write().post('/api/projects/').set(bearer(projectAdmin)).send(body).expect(400);
      expect(res.body.code).toBe('validation_error');
      expect(Object.keys(res.body.errors)).toContain(field);
    };
    await create({ name: 'x'.repeat(256), organization_id: organizationId }, 'name');
    await create({ organization_id: organizationId }, 'name');
    await create({ name: 'No organization' }, 'organization_id');
    await create({ name: 'Bad organization', organization_id: 'nope' }, 'organization_id');
    // An unknown organization, and one the caller is not in: the same 404 naming the field (DECISIONS.md 1).
    const unknownOrganization = await write().post('/api/projects/').set(bearer(projectAdmin)).send({ name: 'Unknown organization', organization_id: '3f1c2d9e-1111-4000-8000-000000000002' }).expect(404);
    expect(unknownOrganization.body).toEqual({ status: 404, code: 'not_found', detail: expect.any(String), errors: { organization_id: ['Not found.'] } });
    const notMine = await write().post('/api/projects/').set(bearer(projectAdmin)).send({ name: 'Not my organization', organization_id: otherOrganization }).expect(404);
    expect(notMine.body).toEqual(unknownOrganization.body);
    const nobody = await write().post('/api/projects/').set(bearer(projectAdmin)).send().expect(400);
    expect(nobody.body.code).toBe('validation_error');
  });

  it('keeps member_count exact and manages members and their roles', async () => {
    const { organizationId, projectAdmin, outsider, member } = world;
    const project = await createProject(h, projectAdmin, organizationId, 'Crevasse Watch');
    const added = await write().post(`/api/projects/${project.id}/members/`).set(bearer(projectAdmin)).send({ user_id: outsider.id }).expect(201);
    expect(added.body).toEqual({ user_id: outsider.id, name: expect.any(String), email: outsider.email, role: 'member', created_at: expect.any(String), updated_at: expect.any(String) });
    expect(added.headers['location']).toBe(`/api/projects/${project.id}/members/${outsider.id}/`);
    await addMember(h, projectAdmin, project.id, member, 'viewer');
    expect((await getProject(projectAdmin, project.id)).member_count).toBe(3);

    const duplicate = await write().post(`/api/projects/${project.id}/members/`).set(bearer(projectAdmin)).send({ user_id: outsider.id, role: 'viewer' }).expect(409);
    expect(duplicate.body.code).toBe('already_member');
    const unknownUser = await write().post(`/api/projects/${project.id}/members/`).set(bearer(projectAdmin)).send({ user_id: '3f1c2d9e-1111-4000-8000-000000000003' }).expect(404);
    expect(unknownUser.body).toEqual({ status: 404, code: 'not_found', detail: expect.any(String), errors: { user_id: ['Not found.'] } });
    const badRole = await write().post(`/api/projects/${project.id}/members/`).set(bearer(projectAdmin)).send({ user_id: outsider.id, role: 'owner' }).expect(400);
    expect(Object.keys(badRole.body.errors)).toEqual(['role']);

    const listed = await read().get(`/api/projects/${project.id}/members/`).set(bearer(outsider)).expect(200);
    expect(listed.body.map((m: { user_id: string; role: string }) => [m.user_id, m.role]).sort()).toEqual(
      [
        [projectAdmin.id, 'admin'],
        [outsider.id, 'member'],
        [member.id, 'viewer'],
      ].sort(),
    );

    const promoted = await write().patch(`/api/projects/${project.id}/members/${outsider.id}/`).set(bearer(projectAdmin)).send({ role: 'admin' }).expect(200);
    expect(promoted.body).toMatchObject({ user_id: outsider.id, role: 'admin' });
    expect(await getProject(outsider, project.id)).toMatchObject({ current_user_role: 'admin', effective_flags: flags.admin, access_scope: 'direct' });
    const badPatch = await write().patch(`/api/projects/${project.id}/members/${outsider.id}/`).set(bearer(projectAdmin)).send({ role: 'boss' }).expect(400);
    expect(badPatch.body.code).toBe('validation_error');
    await write().patch(`/api/projects/${project.id}/members/3f1c2d9e-1111-4000-8000-000000000004/`).set(bearer(projectAdmin)).send({ role: 'viewer' }).expect(404);

    // The new admin removes the creator; the last admin can then neither go nor be demoted.
    await write().delete(`/api/projects/${project.id}/members/${projectAdmin.id}/`).set(bearer(outsider)).expect(204);
    const demote = await write().patch(`/api/projects/${project.id}/members/${outsider.id}/`).set(bearer(outsider)).send({ role: 'member' }).expect(409);
    expect(demote.body.code).toBe('last_project_admin');
    const leave = await write().delete(`/api/projects/${project.id}/members/${outsider.id}/`).set(bearer(outsider)).expect(409);
    expect(leave.body.code).toBe('last_project_admin');
    // A member may leave on their own.
    await write().delete(`/api/projects/${project.id}/members/${member.id}/`).set(bearer(member)).expect(204);
    await read().get(`/api/projects/${project.id}/`).set(bearer(member)).expect(404);
    await write().delete(`/api/projects/${project.id}/members/${member.id}/`).set(bearer(outsider)).expect(404);
    const after = await getProject(outsider, project.id);
    expect(after.member_count).toBe(1);
    // The creator, no longer a member, still sees it as a member of the organization? No: only as an organization admin would.
    await read().get(`/api/projects/${project.id}/`).set(bearer(projectAdmin)).expect(404);
    expect(after.owner_id).toBe(projectAdmin.id);
  });

  it('gives each caller the flags, scope and role of their standing', async () => {
    const { project, projectAdmin, member, viewer, organizationAdmin, systemAdmin } = world;
    expect(await getProject(projectAdmin, project.id)).toMatchObject({ effective_flags: flags.admin, access_scope: 'direct', current_user_role: 'admin' });
    expect(await getProject(member, project.id)).toMatchObject({ effective_flags: flags.member, access_scope: 'direct', current_user_role: 'member' });
    expect(await getProject(viewer, project.id)).toMatchObject({ effective_flags: flags.viewer, access_scope: 'direct', current_user_role: 'viewer' });
    expect(await getProject(organizationAdmin, project.id)).toMatchObject({ effective_flags: 511, access_scope: 'organization', current_user_role: null });
    expect(await getProject(systemAdmin, project.id)).toMatchObject({ effective_flags: 511, access_scope: 'admin', current_user_role: null });
    expect((await getProject(viewer, project.id)).member_count).toBe(3);
  });

  it('stars per caller, idempotently', async () => {
    const { project, member, viewer } = world;
    await write().post(`/api/projects/${project.id}/star/`).set(bearer(member)).expect(204);
    await write().post(`/api/projects/${project.id}/star/`).set(bearer(member)).expect(204);
    expect((await getProject(member, project.id)).is_starred).toBe(true);
    expect((await getProject(viewer, project.id)).is_starred).toBe(false);
    const listed = await read().get('/api/projects/').set(bearer(member)).expect(200);
    expect(listed.body.find((p: Project) => p.id === project.id)?.is_starred).toBe(true);
    await write().delete(`/api/projects/${project.id}/star/`).set(bearer(member)).expect(204);
    await write().delete(`/api/projects/${project.id}/star/`).set(bearer(member)).expect(204);
    expect((await getProject(member, project.id)).is_starred).toBe(false);
    const stream = await h.resources.eventStore.readStream(`project-${project.id}`);
    expect(stream.events.filter((e) => e.type.startsWith('Project') && e.type.includes('tarred')).map((e) => e.type)).toEqual(['ProjectStarred', 'ProjectUnstarred']);
  });

  it('lists the projects a caller is in or administers, by name, filtered by q and organization', async () => {
    const organizationId = await organization(h, 'Listing Org');
    const [owner, organizationAdmin, organizationMember, member] = [await h.createUser(), await h.createUser(), await h.createUser(), await h.createUser()];
    await join(h, organizationId, owner);
    await join(h, organizationId, organizationAdmin, 'admin');
    await join(h, organizationId, organizationMember);
    const zeta = await createProject(h, owner, organizationId, 'zeta Stream');
    const alpha = await createProject(h, owner, organizationId, 'Alpha Basin');
    const mu = await createProject(h, owner, organizationId, 'Mu 100% Delta');
    await addMember(h, owner, mu.id, member, 'viewer');
    const ids = async (caller: User, query: Record<string, string> = {}) =>
      ((await read().get('/api/projects/').query(query).set(bearer(caller)).expect(200)).body as Project[]).map((p) => p.id);

    expect(await ids(owner, { organization_id: organizationId })).toEqual([alpha.id, mu.id, zeta.id]);
    expect(await ids(organizationAdmin)).toEqual([alpha.id, mu.id, zeta.id]);
    expect(await ids(member)).toEqual([mu.id]);
    expect(await ids(organizationMember)).toEqual([]);
    expect(await ids(world.systemAdmin, { organization_id: organizationId })).toEqual([alpha.id, mu.id, zeta.id]);
    expect((await ids(world.systemAdmin)).length).toBeGreaterThan(3);
    expect(await ids(owner, { q: 'BASIN' })).toEqual([alpha.id]);
    expect(await ids(owner, { q: '100%' })).toEqual([mu.id]);
    expect(await ids(owner, { q: '%' })).toEqual([mu.id]);
    expect(await ids(owner, { q: '_' })).toEqual([]);
    const listed = (await read().get('/api/projects/').set(bearer(organizationAdmin)).expect(200)).body as Project[];
    expect(listed[0]).toMatchObject({ access_scope: 'organization', effective_flags: 511, current_user_role: null });
    const bad = await read().get('/api/projects/').query({ organization_id: 'x' }).set(bearer(owner)).expect(400);
    expect(bad.body.code).toBe('validation_error');
  });

  it('deletes a project with its members, stars and root collection', async () => {
    const { organizationId, projectAdmin, member, organizationAdmin } = world;
    const project = await createProject(h, projectAdmin, organizationId, 'Doomed');
    await addMember(h, projectAdmin, project.id, member, 'member');
    await write().post(`/api/projects/${project.id}/star/`).set(bearer(member)).expect(204);
    const deleted = await write().delete(`/api/projects/${project.id}/`).set(bearer(organizationAdmin)).expect(204);
    expect(deleted.text).toBe('');
    for (const caller of [projectAdmin, member, organizationAdmin, world.systemAdmin]) {
      await read().get(`/api/projects/${project.id}/`).set(bearer(caller)).expect(404);
      await read().get(`/api/projects/${project.id}/members/`).set(bearer(caller)).expect(404);
    }
    await write().delete(`/api/projects/${project.id}/`).set(bearer(projectAdmin)).expect(404);
    await write().patch(`/api/projects/${project.id}/`).set(bearer(projectAdmin)).send({ name: 'x' }).expect(404);
    const listed = (await read().get('/api/projects/').set(bearer(member)).expect(200)).body as Project[];
    expect(listed.map((p) => p.id)).not.toContain(project.id);
    const { rows } = await h.resources.pool.query(
      'select (select count(*)::int from project_members where project_id = $1) as members, (select count(*)::int from project_stars where project_id = $1) as stars, (select count(*)::int from collections where id = $2) as roots',
      [project.id, project.root_collection_id],
    );
    expect(rows).toEqual([{ members: 0, stars: 0, roots: 0 }]);
    const root = await h.resources.eventStore.readStream(`collection-${project.root_collection_id}`);
    expect(root.events.map((e) => e.type)).toEqual(['CollectionCreated', 'CollectionDeleted']);
  });

  it('answers 404 for ids that are not UUIDs and 405 for other methods', async () => {
    await read().get('/api/projects/nope/').set(bearer(world.projectAdmin)).expect(404);
    await write().patch('/api/projects/nope/members/also-nope/').set(bearer(world.projectAdmin)).send({ role: 'viewer' }).expect(404);
    const res = await request(h.queryApp).put(`/api/projects/${world.project.id}/`).set(bearer(world.projectAdmin)).send({});
    expect([404, 405]).toContain(res.status);
    if (shape === 'all') expect(res.headers['allow']).toBe('DELETE, GET, HEAD, PATCH');
  });
});
