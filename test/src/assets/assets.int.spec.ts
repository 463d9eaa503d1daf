import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User, uuidPattern } from '../support/api.ts';
import { startHarness, type Harness, type Shape } from '../support/harness.ts';
import { createAsset, setPermissions, type Asset } from './assets-fixtures.ts';

describe.each<Shape>(['all', 'split'])('asset records over HTTP (%s)', (shape) => {
  let h: Harness;
  let owner: User;
  let other: User;
  const write = () => request(h.commandApp);
  const read = () => request(h.queryApp);

  beforeAll(async () => {
    h = await startHarness(shape);
    owner = await h.createUser();
    other = await h.createUser();
  });
  afterAll(async () => h.close());

  it('creates an asset owned by the caller and reads it back, on both sides', async () => {
    const created = await write()
      .post('/api/assets/')
      .set(bearer(owner))
      .send({ title: '  Ice core 7 ', alias: 'ic7', description: 'Drilled 2026', record_type: 'dataset', tags: ['ice', ' core ', 'ice'], metadata: { depth: 120.5, site: { name: 'Dome C', lat: -75.1 }, tags: ['a'] } })
      .expect(201);
    const asset = created.body as Asset;
    expect(asset).toEqual({
      id: expect.stringMatching(uuidPattern),
      title: 'Ice core 7',
      alias: 'ic7',
      description: 'Drilled 2026',
      record_type: 'dataset',
      tags: ['ice', 'core'],
      metadata: { depth: 120.5, site: { name: 'Dome C', lat: -75.1 }, tags: ['a'] },
      owner_type: 'user',
      owner_id: owner.id,
      collection_ids: [],
      is_locked: false,
      locked_by: null,
      locked_at: null,
      lock_reason: '',
      is_starred: false,
      is_migrating: false,
      effective_flags: 511,
      access_scope: 'direct',
      created_by: owner.id,
      created_at: expect.any(String),
      updated_at: asset.created_at,
    });
    expect(new Date(asset.created_at).toISOString()).toBe(asset.created_at);
    expect(created.headers['location']).toBe(`/api/assets/${asset.id}/`);
    const token = created.headers['x-consistency-token'] as string;
    const got = await read().get(`/api/assets/${asset.id}/`).set(bearer(owner)).set('X-Consistency-Token', token).expect(200);
    expect(got.body).toEqual(asset);
    // Hidden from others, exactly like an unknown id.
    const hidden = await read().get(`/api/assets/${asset.id}/`).set(bearer(other)).expect(404);
    const unknown = await read().get(`/api/assets/00000000-0000-4000-8000-000000000000/`).set(bearer(other)).expect(404);
    expect(hidden.body).toEqual(unknown.body);
  });

  it('patches, locks (423 for writes), unlocks, stars and deletes', async () => {
    const asset = await createAsset(h, owner, { title: 'Patch me' });
    const patched = await write().patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ title: 'Patched', metadata: { a: 1 } }).expect(200);
    expect(patched.body).toMatchObject({ title: 'Patched', metadata: { a: 1 } });
    const locked = await write().post(`/api/assets/${asset.id}/lock/`).set(bearer(owner)).send({ locked: true, reason: 'frozen for review' }).expect(200);
    expect(locked.body).toMatchObject({ is_locked: true, locked_by: owner.id, lock_reason: 'frozen for review' });
    const refused = await write().patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ title: 'Nope' }).expect(423);
    expect(refused.body).toMatchObject({ status: 423, code: 'asset_locked' });
    await write().delete(`/api/assets/${asset.id}/`).set(bearer(owner)).expect(423);
    await write().post(`/api/assets/${asset.id}/star/`).set(bearer(owner)).expect(204);
    await write().post(`/api/assets/${asset.id}/star/`).set(bearer(owner)).expect(204);
    expect((await read().get(`/api/assets/${asset.id}/`).set(bearer(owner)).expect(200)).body).toMatchObject({ is_starred: true, is_locked: true });
    await write().post(`/api/assets/${asset.id}/lock/`).set(bearer(owner)).send({ locked: false }).expect(200);
    await write().delete(`/api/assets/${asset.id}/`).set(bearer(owner)).expect(204);
    await read().get(`/api/assets/${asset.id}/`).set(bearer(owner)).expect(404);
  });

  it('grants through permissions: replace, read back resolved, effective at once', async () => {
    const asset = await createAsset(h, owner, { title: 'Shared' });
    const entries = await setPermissions(h, owner, asset.id, [{ subject_type: 'user', subject_id: other.id, flags: 1 | 16 }]);
    // No e-mail address but to system administrators and the user themself (DECISIONS.md 2).
    expect(entries).toEqual([{ subject: { id: other.id, subject_type: 'user', name: expect.any(String), email: '' }, flags: 17 }]);
    const seen = await read().get(`/api/assets/${asset.id}/`).set(bearer(other)).expect(200);
    expect(seen.body).toMatchObject({ effective_flags: 17, access_scope: 'direct' });
    await write().patch(`/api/assets/${asset.id}/`).set(bearer(other)).send({ title: 'x' }).expect(403);
    const bad = await write().put(`/api/assets/${asset.id}/permissions/`).set(bearer(owner)).send({ permissions: [{ subject_type: 'group', subject_id: '00000000-0000-4000-8000-000000000000', flags: 1 }] }).expect(404);
    expect(Object.keys(bad.body.errors)).toEqual(['permissions.0.subject_id']);
  });
});
