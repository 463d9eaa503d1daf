import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createProject, join, organization, patchProject } from '../projects/projects-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createAsset, setPermissions, type Asset } from './assets-fixtures.ts';

/** Addresses the bundled database places in Germany and the United States (see the projects' geo spec). */
const ip = { DE: '80.128.0.1', US: '8.8.8.8' } as const;
// Supertest connects from loopback: trusting it makes X-Forwarded-For the client's address.
const geoConfig = { CAIRN_TRUSTED_PROXIES: '127.0.0.1,::1' };

describe('the geographic restriction of a project, on the assets it owns', () => {
  let h: Harness;
  let admin: User;
  let member: User;
  let granted: User;
  let systemAdmin: User;
  let organizationId: string;

  beforeAll(async () => {
    h = await startHarness('all', geoConfig);
    organizationId = await organization(h, 'Geo Institute', 'DE');
    [admin, member, granted, systemAdmin] = [await h.createUser(), await h.createUser(), await h.createUser(), await h.createUser({ admin: true })];
    await join(h, organizationId, admin);
  });
  afterAll(async () => h.close());

  it('guards every asset route of a restricted project’s assets, like the project itself, and follows the restriction being lifted', async () => {
    const project = await createProject(h, admin, organizationId, 'Restricted assets');
    await addMember(h, admin, project.id, member, 'member');
    const asset = await createAsset(h, admin, { title: 'Behind the border', owner_type: 'project', owner_id: project.id });
    const other = await createAsset(h, admin, { title: 'Also behind', owner_type: 'project', owner_id: project.id });
    // Someone outside the project who reaches the asset by a grant is bound all the same.
    await setPermissions(h, admin, asset.id, [{ subject_type: 'user', subject_id: granted.id, flags: 1 | 2 }]);
    const unrestricted = await createAsset(h, member, { title: 'Mine, anywhere' });
    await patchProject(h, admin, project.id, { geobound_enabled: true, geobound_basis: 'ip', geobound_allowed_countries: ['DE'] });

    const w = () => request(h.commandApp);
    const r = () => request(h.queryApp);
    const getFrom = (caller: User, from: string, id = asset.id) => r().get(`/api/assets/${id}/`).set(bearer(caller)).set('X-Forwarded-For', from);

    // Allowed from Germany, for members, grantees and administrators alike.
    for (const caller of [admin, member, granted, systemAdmin]) expect((await getFrom(caller, ip.DE)).status).toBe(200);

    const US = { 'X-Forwarded-For': ip.US };
    const denied = await getFrom(member, ip.US).expect(403);
    expect(denied.body).toEqual({ status: 403, code: 'geo_restricted', detail: expect.any(String) });
    const attempts: [string, request.Test][] = [
      ['GET /api/assets/{id}/ as the grantee', getFrom(granted, ip.US)],
      ['GET /api/assets/{id}/ as a system administrator', getFrom(systemAdmin, ip.US)],
      ['PATCH /api/assets/{id}/', w().patch(`/api/assets/${asset.id}/`).set(bearer(admin)).set(US).send({ title: 'x' })],
      ['DELETE /api/assets/{id}/', w().delete(`/api/assets/${asset.id}/`).set(bearer(admin)).set(US)],
      ['POST /api/assets/{id}/lock/', w().post(`/api/assets/${asset.id}/lock/`).set(bearer(admin)).set(US).send({ locked: true })],
      ['POST /api/assets/{id}/star/', w().post(`/api/assets/${asset.id}/star/`).set(bearer(member)).set(US)],
      ['DELETE /api/assets/{id}/star/', w().delete(`/api/assets/${asset.id}/star/`).set(bearer(member)).set(US)],
      ['GET /api/assets/{id}/permissions/', r().get(`/api/assets/${asset.id}/permissions/`).set(bearer(member)).set(US)],
      ['PUT /api/assets/{id}/permissions/', w().put(`/api/assets/${asset.id}/permissions/`).set(bearer(admin)).set(US).send({ permissions: [] })],
      ['POST /api/assets/permissions/bulk-merge/', w().post('/api/assets/permissions/bulk-merge/').set(bearer(admin)).set(US).send({ asset_ids: [other.id], permissions: [{ subject_type: 'public', flags: 1 }] })],
      ['POST /api/assets/permissions/intersection/', r().post('/api/assets/permissions/intersection/').set(bearer(admin)).set(US).send({ asset_ids: [other.id, asset.id] })],
      // Creating for the project is working in it.
      ['POST /api/assets/', w().post('/api/assets/').set(bearer(member)).set(US).send({ title: 'New', owner_type: 'project', owner_id: project.id })],
      // A caller without the flag learns of the restriction, not of the missing flag.
      ['DELETE /api/assets/{id}/ without DELETE', w().delete(`/api/assets/${asset.id}/`).set(bearer(granted)).set(US)],
    ];
    for (const [label, attempt] of attempts) {
      const res = await attempt;
      expect([res.status, res.body.code], label).toEqual([403, 'geo_restricted']);
    }
    // Nothing changed.
    expect((await getFrom(admin, ip.DE).expect(200)).body as Asset).toMatchObject({ title: 'Behind the border', is_locked: false, is_starred: false });
    expect((await r().get(`/api/assets/${other.id}/permissions/`).set(bearer(admin)).set('X-Forwarded-For', ip.DE).expect(200)).body).toEqual([]);
    // Who cannot read the asset gets 404 wherever they are; assets of no restricted project are open everywhere.
    const stranger = await h.createUser();
    await getFrom(stranger, ip.US).expect(404);
    await getFrom(member, ip.US, unrestricted.id).expect(200);

    // Lifted (from an allowed place), the assets are open again.
    await w().patch(`/api/projects/${project.id}/`).set(bearer(admin)).set('X-Forwarded-For', ip.DE).send({ geobound_enabled: false }).expect(200);
    await getFrom(member, ip.US).expect(200);
    await w().patch(`/api/assets/${asset.id}/`).set(bearer(granted)).set(US).send({ title: 'Open again' }).expect(200);
  });

});
