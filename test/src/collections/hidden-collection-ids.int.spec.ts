import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createAsset, setPermissions, type Asset } from '../assets/assets-fixtures.ts';
import { attachAssets, createCollection, setCollectionPermissions, type Collection } from './collections-fixtures.ts';

const READ = 1;

/**
 * Ids of collections a caller may not see are not disclosed (issue 23, docs/collections.md):
 * not through a visible sub-collection's `parent_ids` and `parent_id`, not through a
 * readable asset's `collection_ids`, and the `collection_id=` and `parent_id=` filters
 * answer for a hidden collection exactly what they answer for a random id.
 */
describe('hidden collection ids', () => {
  let h: Harness;
  let owner: User;
  let guest: User;
  let admin: User;
  let top: Collection;
  let middle: Collection;
  let shared: Collection;
  let asset: Asset;
  const read = () => request(h.queryApp);

  beforeAll(async () => {
    h = await startHarness('all');
    [owner, guest, admin] = [await h.createUser(), await h.createUser(), await h.createUser({ admin: true })];
    // top > middle > shared; the guest is given `shared` alone, and the asset (not the collections above).
    top = await createCollection(h, owner, { title: 'Hidden top' });
    middle = await createCollection(h, owner, { title: 'Hidden middle', parent_id: top.id });
    shared = await createCollection(h, owner, { title: 'Shared', parent_id: middle.id });
    await setCollectionPermissions(h, owner, shared.id, [{ subject_type: 'user', subject_id: guest.id, flags: READ }]);
    asset = await createAsset(h, owner, { title: 'In a hidden collection' });
    await attachAssets(h, owner, top.id, [asset.id]);
    await setPermissions(h, owner, asset.id, [{ subject_type: 'user', subject_id: guest.id, flags: READ }]);
  });
  afterAll(async () => h.close());

  it('a visible sub-collection names only the ancestors the caller sees', async () => {
    const asGuest = (await read().get(`/api/collections/${shared.id}/`).set(bearer(guest)).expect(200)).body as Collection;
    expect(asGuest.parent_ids).toEqual([]);
    expect(asGuest.parent_id).toBeNull();
    const listed = (await read().get('/api/collections/').set(bearer(guest)).expect(200)).body as Collection[];
    expect(JSON.stringify(listed)).not.toContain(top.id);
    expect(JSON.stringify(listed)).not.toContain(middle.id);
    // The owner and a system administrator see the whole chain.
    for (const who of [owner, admin]) {
      const full = (await read().get(`/api/collections/${shared.id}/`).set(bearer(who)).expect(200)).body as Collection;
      expect(full.parent_ids.slice(-2)).toEqual([top.id, middle.id]);
      expect(full.parent_id).toBe(middle.id);
    }
  });

  it('a readable asset names only the collections the caller sees', async () => {
    const asGuest = (await read().get(`/api/assets/${asset.id}/`).set(bearer(guest)).expect(200)).body as Asset;
    expect(asGuest.collection_ids).toEqual([]);
    const listed = await read().get('/api/assets/').set(bearer(guest)).expect(200);
    expect(listed.text).not.toContain(top.id);
    const asOwner = (await read().get(`/api/assets/${asset.id}/`).set(bearer(owner)).expect(200)).body as Asset;
    expect(asOwner.collection_ids).toEqual([top.id]);
    expect(((await read().get(`/api/assets/${asset.id}/`).set(bearer(admin)).expect(200)).body as Asset).collection_ids).toEqual([top.id]);
  });

  it('filters by a hidden collection or parent answer like a random id', async () => {
    const answer = async (path: string) => {
      const res = await read().get(path).set(bearer(guest));
      return { status: res.status, body: res.text };
    };
    expect(await answer(`/api/assets/?collection_id=${top.id}`)).toEqual(await answer(`/api/assets/?collection_id=${randomUUID()}`));
    expect(JSON.parse((await answer(`/api/assets/?collection_id=${top.id}`)).body)).toEqual([]);
    expect(await answer(`/api/collections/?parent_id=${middle.id}`)).toEqual(await answer(`/api/collections/?parent_id=${randomUUID()}`));
    // Whoever sees the collection still filters by it.
    const mine = (await read().get(`/api/assets/?collection_id=${top.id}`).set(bearer(owner)).expect(200)).body as Asset[];
    expect(mine.map((a) => a.id)).toEqual([asset.id]);
    const children = (await read().get(`/api/collections/?parent_id=${middle.id}`).set(bearer(owner)).expect(200)).body as Collection[];
    expect(children.map((c) => c.id)).toEqual([shared.id]);
  });

  it('the structured query treats a hidden collection as a random id, in every operator', async () => {
    const query = async (who: User, where: unknown) => {
      const res = await request(h.queryApp).post('/api/assets/query/').set(bearer(who)).send({ where });
      expect(res.status, res.text).toBe(200);
      return (res.body as Asset[]).map((a) => a.id).filter((id) => id === asset.id);
    };
    const random = randomUUID();
    const shapes = (id: string) => [
      { field: 'collection_id', op: 'eq', value: id },
      { field: 'collection_id', op: 'contains', value: id },
      { field: 'collection_id', op: 'in', value: [id, random] },
      { field: 'collection_id', op: 'eq', value: [id] },
      { not: { field: 'collection_id', op: 'eq', value: id } },
      { field: 'collection_id', op: 'ne', value: [id] },
    ];
    // One at a time: a caller runs at most a few queries at once (docs/asset-query.md).
    const all = async (who: User, wheres: unknown[]) => {
      const found: string[][] = [];
      for (const where of wheres) found.push(await query(who, where));
      return found;
    };
    const hidden = await all(guest, shapes(top.id));
    const unknown = await all(guest, shapes(random));
    expect(hidden).toEqual(unknown);
    expect(hidden).toEqual([[], [], [], [], [asset.id], [asset.id]]);
    // The owner and a system administrator still query by it.
    for (const who of [owner, admin]) expect(await all(who, shapes(top.id))).toEqual([[asset.id], [asset.id], [asset.id], [asset.id], [], []]);
  });
});
