import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../assets/assets-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { fsRepository, grantAllocation, upload } from './storage-fixtures.ts';

/**
 * Issue 25, "also seen": every 201 names what it made in `Location`, as the other creates
 * do; each address answers the same resource to its creator. docs/http.md.
 */

let h: Harness;
let root: User;
let owner: User;

beforeAll(async () => {
  h = await startHarness('all');
  root = await h.createUser({ admin: true });
  owner = await h.createUser();
});
afterAll(async () => h.close());

/** The 201's Location, and what GET on it answers the caller. */
async function followed(res: request.Response, caller: User) {
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const location = res.headers['location'];
  expect(typeof location).toBe('string');
  const read = await request(h.queryApp).get(String(location)).set(bearer(caller));
  expect(read.status, `${String(location)}: ${JSON.stringify(read.body)}`).toBe(200);
  return { location: String(location), body: read.body as Record<string, unknown> };
}

describe('Location on every 201', () => {
  it('an allocation, a content record, a migration and a created markdown note name their address', async () => {
    const [home, away] = [await fsRepository(h, 'loc-home'), await fsRepository(h, 'loc-away')];
    const created = await request(h.commandApp).post('/api/allocations/').set(bearer(root)).send({ owner_type: 'user', owner_id: owner.id, repository_id: home.id, limit_bytes: 10_000 });
    const allocation = await followed(created, root);
    expect(allocation.location).toBe(`/api/allocations/${created.body.id}/`);
    expect(allocation.body).toEqual(created.body);
    await grantAllocation(h, root, { owner_type: 'user', owner_id: owner.id, repository_id: away.id, limit_bytes: 10_000 });

    const asset = await createAsset(h, owner);
    const added = await upload(h, owner, asset.id, Buffer.from('located'));
    const content = await followed(added, owner);
    expect(content.location).toBe(`/api/assets/${asset.id}/content/${added.body.id}/`);
    expect(content.body['id']).toBe(added.body.id);

    const started = await request(h.commandApp).post(`/api/assets/${asset.id}/migrations/`).set(bearer(owner)).send({ target_repository_id: away.id });
    const migration = await followed(started, owner);
    expect(migration.location).toBe(`/api/assets/${asset.id}/migrations/${started.body.id}/`);
    expect(migration.body).toMatchObject({ id: started.body.id, asset_id: asset.id, target_repository_id: away.id });

    const note = await request(h.commandApp).put(`/api/assets/${asset.id}/markdown-note/`).set(bearer(owner)).send({ content: '# Here' });
    const noted = await followed(note, owner);
    expect(noted.location).toBe(`/api/assets/${asset.id}/markdown-note/`);
    expect(noted.body['content']).toBe('# Here');
    // An update is 200, and names nothing new.
    const updated = await request(h.commandApp).put(`/api/assets/${asset.id}/markdown-note/`).set(bearer(owner)).send({ content: '# There' });
    expect([updated.status, updated.headers['location']]).toEqual([200, undefined]);
  });

  it('the migration address is hidden like its asset, and unknown migrations are 404', async () => {
    const asset = await createAsset(h, owner);
    const stranger = await h.createUser();
    const unknown = '00000000-0000-4000-8000-000000000000';
    const missing = await request(h.queryApp).get(`/api/assets/${asset.id}/migrations/${unknown}/`).set(bearer(owner));
    expect([missing.status, missing.body.code]).toEqual([404, 'not_found']);
    const hidden = await request(h.queryApp).get(`/api/assets/${asset.id}/migrations/${unknown}/`).set(bearer(stranger));
    const nowhere = await request(h.queryApp).get(`/api/assets/${unknown}/migrations/${unknown}/`).set(bearer(stranger));
    expect([hidden.status, hidden.body]).toEqual([404, nowhere.body]);
  });
});
