import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createAsset } from '../assets/assets-fixtures.ts';

describe('collections, first slice', () => {
  let h: Harness;
  let owner: User;
  let other: User;
  const write = () => request(h.commandApp);
  const read = () => request(h.queryApp);
  beforeAll(async () => {
    h = await startHarness('all');
    owner = await h.createUser();
    other = await h.createUser();
  });
  afterAll(async () => h.close());

  it('builds a tree, moves it, grants down it, and deletes it', async () => {
    const a = (await write().post('/api/collections/').set(bearer(owner)).send({ title: 'A' }).expect(201)).body;
    expect(a).toMatchObject({ title: 'A', is_root: false, owner_type: 'user', owner_user_id: owner.id, effective_flags: 511, access_scope: 'direct', description: '', alias: '' });
    expect(a.parent_ids).toHaveLength(1);
    const root = a.parent_id as string;
    const b = (await write().post('/api/collections/').set(bearer(owner)).send({ title: 'B', parent_id: a.id }).expect(201)).body;
    expect(b.parent_ids).toEqual([root, a.id]);
    const c = (await write().post('/api/collections/').set(bearer(owner)).send({ title: 'C', parent_id: b.id }).expect(201)).body;
    expect(c.parent_ids).toEqual([root, a.id, b.id]);
    const cycle = await write().patch(`/api/collections/${a.id}/`).set(bearer(owner)).send({ parent_id: c.id }).expect(409);
    expect(cycle.body.code).toBe('collection_cycle');
    const moved = await write().patch(`/api/collections/${b.id}/`).set(bearer(owner)).send({ parent_id: root }).expect(200);
    expect(moved.body.parent_ids).toEqual([root]);
    expect((await read().get(`/api/collections/${c.id}/`).set(bearer(owner)).expect(200)).body.parent_ids).toEqual([root, b.id]);
    // If-Match
    const stale = await write().patch(`/api/collections/${c.id}/`).set(bearer(owner)).set('If-Match', a.provenance_token).send({ title: 'C2' }).expect(412);
    expect(stale.body.code).toBe('provenance_mismatch');
    const fresh = (await read().get(`/api/collections/${c.id}/`).set(bearer(owner))).body;
    await write().patch(`/api/collections/${c.id}/`).set(bearer(owner)).set('If-Match', `"${fresh.provenance_token}"`).send({ title: 'C2' }).expect(200);
    // Assets and inherited grants.
    const asset = await createAsset(h, owner, { title: 'In C', collection_id: c.id });
    await read().get(`/api/assets/${asset.id}/`).set(bearer(other)).expect(404);
    await write().put(`/api/collections/${b.id}/permissions/`).set(bearer(owner)).send({ permissions: [{ subject_type: 'user', subject_id: other.id, flags: 1 | 64 }] }).expect(200);
    const seen = await read().get(`/api/assets/${asset.id}/`).set(bearer(other)).expect(200);
    expect(seen.body).toMatchObject({ effective_flags: 65, access_scope: 'collection', collection_ids: [c.id] });
    const listed = await read().get(`/api/collections/${c.id}/assets/`).set(bearer(other)).expect(200);
    expect(listed.body.map((x: { id: string }) => x.id)).toEqual([asset.id]);
    expect((await read().get('/api/assets/').set(bearer(other)).expect(200)).body.map((x: { id: string }) => x.id)).toEqual([asset.id]);
    await write().delete(`/api/collections/${b.id}/`).set(bearer(owner)).expect(409);
    await write().delete(`/api/collections/${b.id}/?recursive=true`).set(bearer(owner)).expect(204);
    await read().get(`/api/collections/${c.id}/`).set(bearer(owner)).expect(404);
    const after = await read().get(`/api/assets/${asset.id}/`).set(bearer(owner)).expect(200);
    expect(after.body.collection_ids).toEqual([]);
    await read().get(`/api/assets/${asset.id}/`).set(bearer(other)).expect(404);
    const mine = await read().get('/api/collections/').set(bearer(owner)).expect(200);
    expect(mine.body.map((x: { title: string }) => x.title).sort()).toEqual(['A', 'Home']);
  });
});
