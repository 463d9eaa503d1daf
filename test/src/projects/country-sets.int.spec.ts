import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type CountrySet, type User, uuidPattern } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createCountrySet, createProject, join, organization, patchProject } from './projects-fixtures.ts';

describe('named country sets over HTTP', () => {
  let h: Harness;
  let organizationId: string;
  let otherOrganizationId: string;
  let admin: User;
  let member: User;
  let outsider: User;
  let otherAdmin: User;
  let systemAdmin: User;
  const write = () => request(h.commandApp);
  const read = () => request(h.queryApp);

  beforeAll(async () => {
    h = await startHarness('all');
    organizationId = await organization(h, 'Polar Institute');
    otherOrganizationId = await organization(h, 'Desert Institute');
    [admin, member, outsider, otherAdmin, systemAdmin] = [await h.createUser(), await h.createUser(), await h.createUser(), await h.createUser(), await h.createUser({ admin: true })];
    await join(h, organizationId, admin, 'admin');
    await join(h, organizationId, member);
    await join(h, otherOrganizationId, otherAdmin, 'admin');
  });
  afterAll(async () => h.close());

  it('creates, reads, lists, changes and deletes a set, with its countries sorted and unique', async () => {
    const created = await write()
      .post('/api/country-sets/')
      .set(bearer(admin))
      .send({ organization_id: organizationId, name: ' Schengen core ', kind: 'allowed', countries: ['FR', 'DE', 'AT', 'DE'] })
      .expect(201);
    const set = created.body as CountrySet;
    expect(set).toEqual({
      id: expect.stringMatching(uuidPattern),
      organization_id: organizationId,
      name: 'Schengen core',
      kind: 'allowed',
      countries: ['AT', 'DE', 'FR'],
      created_at: expect.any(String),
      updated_at: set.created_at,
    });
    expect(created.headers['location']).toBe(`/api/country-sets/${set.id}/`);
    expect((await read().get(`/api/country-sets/${set.id}/`).set(bearer(member)).expect(200)).body).toEqual(set);

    const patched = await write().patch(`/api/country-sets/${set.id}/`).set(bearer(admin)).send({ name: 'Alpine', countries: ['CH', 'AT'] }).expect(200);
    expect(patched.body).toMatchObject({ id: set.id, name: 'Alpine', kind: 'allowed', countries: ['AT', 'CH'] });
    const kindIgnored = await write().patch(`/api/country-sets/${set.id}/`).set(bearer(admin)).send({ kind: 'denied' }).expect(200);
    expect(kindIgnored.body.kind).toBe('allowed');
    // Nothing was recorded, and the answer still carries a token (of the last event).
    expect(kindIgnored.headers['x-consistency-token']).toMatch(/^[0-9a-z]+\.[0-9a-z]+(\.[0-9a-z]+)?$/);

    const stream = await h.resources.eventStore.readStream(`country_set-${set.id}`);
    expect(stream.events.map((e) => e.type)).toEqual(['CountrySetCreated', 'CountrySetUpdated']);

    await write().delete(`/api/country-sets/${set.id}/`).set(bearer(admin)).expect(204);
    await read().get(`/api/country-sets/${set.id}/`).set(bearer(admin)).expect(404);
    await write().delete(`/api/country-sets/${set.id}/`).set(bearer(admin)).expect(404);
  });

  it('lists the sets of the caller’s organizations by name, filtered by organization and kind', async () => {
    const b = await createCountrySet(h, admin, organizationId, 'b denied', 'denied', ['RU']);
    const a = await createCountrySet(h, admin, organizationId, 'A allowed', 'allowed', ['DE']);
    const other = await createCountrySet(h, otherAdmin, otherOrganizationId, 'Other', 'allowed', ['EG']);
    const ids = async (caller: User, query: Record<string, string> = {}) => ((await read().get('/api/country-sets/').query(query).set(bearer(caller)).expect(200)).body as CountrySet[]).map((s) => s.id);
    expect(await ids(member)).toEqual([a.id, b.id]);
    expect(await ids(member, { kind: 'denied' })).toEqual([b.id]);
    expect(await ids(otherAdmin)).toEqual([other.id]);
    expect(await ids(outsider)).toEqual([]);
    expect(await ids(systemAdmin)).toEqual(expect.arrayContaining([a.id, b.id, other.id]));
    expect(await ids(systemAdmin, { organization_id: otherOrganizationId })).toEqual([other.id]);
    const bad = await read().get('/api/country-sets/').query({ kind: 'maybe' }).set(bearer(member)).expect(400);
    expect(bad.body.code).toBe('validation_error');
  });

  it('lets organization admins and system administrators write; members read; others see nothing', async () => {
    const set = await createCountrySet(h, admin, organizationId, 'Guarded', 'allowed', ['DE']);
    const denied = await write().patch(`/api/country-sets/${set.id}/`).set(bearer(member)).send({ name: 'x' }).expect(403);
    expect(denied.body.code).toBe('permission_denied');
    await write().delete(`/api/country-sets/${set.id}/`).set(bearer(member)).expect(403);
    const memberCreate = await write().post('/api/country-sets/').set(bearer(member)).send({ organization_id: organizationId, name: 'Mine', kind: 'allowed', countries: [] }).expect(403);
    expect(memberCreate.body.code).toBe('permission_denied');
    for (const stranger of [outsider, otherAdmin]) {
      await read().get(`/api/country-sets/${set.id}/`).set(bearer(stranger)).expect(404);
      await write().patch(`/api/country-sets/${set.id}/`).set(bearer(stranger)).send({ name: 'x' }).expect(404);
      await write().delete(`/api/country-sets/${set.id}/`).set(bearer(stranger)).expect(404);
      // An organization the caller is not in: 404 naming the field, as an unknown one (DECISIONS.md 1).
      const create = await write().post('/api/country-sets/').set(bearer(stranger)).send({ organization_id: organizationId, name: 'Theirs', kind: 'allowed' }).expect(404);
      expect(create.body).toEqual({ status: 404, code: 'not_found', detail: expect.any(String), errors: { organization_id: ['Not found.'] } });
    }
    await write().patch(`/api/country-sets/${set.id}/`).set(bearer(systemAdmin)).send({ countries: ['PL'] }).expect(200);
    const bySystemAdmin = await createCountrySet(h, systemAdmin, organizationId, 'By the operator', 'denied', ['KP']);
    expect(bySystemAdmin.organization_id).toBe(organizationId);
    await write().delete(`/api/country-sets/${bySystemAdmin.id}/`).set(bearer(systemAdmin)).expect(204);
    await request(h.queryApp).get(`/api/country-sets/${set.id}/`).expect(401);
    await write().post('/api/country-sets/').send({}).expect(401);
  });

  it('validates name, kind and country codes', async () => {
    const bad = async (body: Record<string, unknown>, field: string) => {
      const res = await write().post('/api/country-sets/').set(bearer(admin)).send({ organization_id: organizationId, name: 'Set', kind: 'allowed', countries: [], ...body }).expect(400);
      expect(res.body.code).toBe('validation_error');
      expect(Object.keys(res.body.errors)).toContain(field);
    };
    await bad({ name: 'x'.repeat(256) }, 'name');
    await bad({ name: '' }, 'name');
    await bad({ kind: 'maybe' }, 'kind');
    await bad({ countries: ['de'] }, 'countries.0');
    await bad({ countries: ['D1'] }, 'countries.0');
    await bad({ organization_id: 'x' }, 'organization_id');
    const set = await createCountrySet(h, admin, organizationId, 'Valid', 'denied', []);
    expect(set.countries).toEqual([]);
    const patch = await write().patch(`/api/country-sets/${set.id}/`).set(bearer(admin)).send({ countries: ['USA'] }).expect(400);
    expect(Object.keys(patch.body.errors)).toEqual(['countries.0']);
  });

  it('describes projects and country sets in the OpenAPI document', async () => {
    const doc = (await read().get('/api/schema/').expect(200)).body;
    const methods = (path: string) => Object.keys(doc.paths[path] ?? {}).sort();
    expect(methods('/api/projects/')).toEqual(['get', 'post']);
    expect(methods('/api/projects/{id}/')).toEqual(['delete', 'get', 'patch']);
    expect(methods('/api/projects/{id}/members/')).toEqual(['get', 'post']);
    expect(methods('/api/projects/{id}/members/{user_id}/')).toEqual(['delete', 'patch']);
    expect(methods('/api/projects/{id}/star/')).toEqual(['delete', 'post']);
    expect(methods('/api/country-sets/')).toEqual(['get', 'post']);
    expect(methods('/api/country-sets/{id}/')).toEqual(['delete', 'get', 'patch']);
    const project = doc.components.schemas.Project;
    expect(Object.keys(project.properties)).toEqual(expect.arrayContaining(['effective_flags', 'is_starred', 'access_scope', 'current_user_role', 'root_collection_id', 'geobound_basis']));
    const patch = doc.components.schemas.PatchedProject;
    expect(patch.properties.name.maxLength).toBe(255);
    expect(patch.properties.geobound_basis.enum).toEqual(['ip', 'affiliation', 'ip_or_affiliation', 'ip_and_affiliation']);
    expect(patch.properties.geobound_allowed_countries.items.pattern).toBe('^[A-Z]{2}$');
  });

  it('refuses to delete a set that a project references', async () => {
    const set = await createCountrySet(h, admin, organizationId, 'Referenced', 'denied', ['RU']);
    const project = await createProject(h, member, organizationId, 'Uses a set');
    await patchProject(h, member, project.id, { geobound_denied_country_set: set.id });
    const refused = await write().delete(`/api/country-sets/${set.id}/`).set(bearer(admin)).expect(409);
    expect(refused.body.code).toBe('country_set_in_use');
    await patchProject(h, member, project.id, { geobound_denied_country_set: null });
    await write().delete(`/api/country-sets/${set.id}/`).set(bearer(admin)).expect(204);
  });
});
