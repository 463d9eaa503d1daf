import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldFactsCacheOf } from '@cairn/projections';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness, type Shape } from '../support/harness.ts';
import { createAsset, setPermissions, type Asset } from './assets-fixtures.ts';
import { attachAssets, createCollection, moveCollection, setCollectionPermissions, type Collection } from '../collections/collections-fixtures.ts';

const READ = 1;
const WRITE = 2;

/**
 * The facts of the collections holding a page's assets are kept by the query process under
 * the version the collections projection writes (migration 0054, held-facts-cache.ts): a
 * page statement that reads the same version leaves them out, and any move, change of
 * entries or deletion of a collection makes the next page read them again.
 */
describe.each<Shape>(['all', 'split'])('the collections\' facts kept for pages (%s)', (shape) => {
  let h: Harness;
  let owner: User;
  let guest: User;
  let held: Collection;
  let asset: Asset;
  const cache = () => heldFactsCacheOf(h.queryResources.db);
  const listed = async (who: User) => {
    const body = (await request(h.queryApp).get('/api/assets/?limit=20').set(bearer(who)).expect(200)).body as Asset[];
    return (id: string) => body.find((a) => a.id === id);
  };
  const version = async () => (await h.resources.pool.query<{ v: string }>("select v.version || '@' || v.tableoid::text as v from collection_facts_version v")).rows[0]?.v ?? null;

  beforeAll(async () => {
    h = await startHarness(shape);
    [owner, guest] = [await h.createUser(), await h.createUser()];
    held = await createCollection(h, owner, { title: 'Kept facts' });
    asset = await createAsset(h, owner, { title: 'Held and shared' });
    await attachAssets(h, owner, held.id, [asset.id]);
    // The guest reads the asset by its own grant, whatever the collection says.
    await setPermissions(h, owner, asset.id, [{ subject_type: 'user', subject_id: guest.id, flags: READ }]);
  });
  afterAll(async () => h?.close());

  it('keeps the facts a page read, and a later page answers from them', async () => {
    const first = (await listed(guest))(asset.id);
    expect(first?.collection_ids).toEqual([]);
    expect(first?.effective_flags).toBe(READ);
    expect(cache().version).toBe(await version());
    expect(cache().facts.has(held.id)).toBe(true);
    // Kept facts that say otherwise show in the answer: the page read them, not the table.
    const truth = cache().facts.get(held.id);
    if (!truth) throw new Error('no kept facts');
    cache().facts.set(held.id, { ...truth, readers: `u:${guest.id}`, entries: JSON.stringify({ [`u:${guest.id}`]: READ | WRITE }) });
    try {
      const lied = (await listed(guest))(asset.id);
      expect(lied?.collection_ids).toEqual([held.id]);
      expect(lied?.effective_flags).toBe(READ | WRITE);
    } finally {
      cache().facts.set(held.id, truth);
    }
  });

  it('answers a change of a collection\'s entries at once: the version it writes ends the kept facts', async () => {
    await listed(guest);
    const before = cache().version;
    await setCollectionPermissions(h, owner, held.id, [{ subject_type: 'user', subject_id: guest.id, flags: READ | WRITE }]);
    expect(await version()).not.toBe(before);
    const granted = (await listed(guest))(asset.id);
    expect(granted?.collection_ids).toEqual([held.id]);
    expect(granted?.effective_flags).toBe(READ | WRITE);
    expect(cache().version).toBe(await version());
    // Revoked: the next page no longer names the collection nor gives its flags.
    await setCollectionPermissions(h, owner, held.id, []);
    const revoked = (await listed(guest))(asset.id);
    expect(revoked?.collection_ids).toEqual([]);
    expect(revoked?.effective_flags).toBe(READ);
  });

  it('reads the facts of a collection created since, under the same version, and keeps them', async () => {
    await listed(owner);
    const kept = cache().version;
    // A creation and an attachment change no collection's facts: the version stays.
    const later = await createCollection(h, owner, { title: 'Created later' });
    const other = await createAsset(h, owner, { title: 'In the later one' });
    await attachAssets(h, owner, later.id, [other.id]);
    expect(await version()).toBe(kept);
    expect(cache().facts.has(later.id)).toBe(false);
    const page = await listed(owner);
    expect(page(other.id)?.collection_ids).toEqual([later.id]);
    expect(page(asset.id)?.collection_ids).toEqual([held.id]);
    expect(cache().version).toBe(kept);
    expect(cache().facts.has(later.id)).toBe(true);
  });

  it('without a version (a log the migration could not read) every page reads its collections\' facts, and keeps none', async () => {
    await h.resources.pool.query('delete from collection_facts_version');
    try {
      // A process that kept nothing yet (null), and one that kept facts under a version since gone.
      for (const kept of [null, 'gone@1']) {
        cache().version = kept;
        cache().facts.clear();
        const page = await listed(owner);
        expect(page(asset.id)?.collection_ids).toEqual([held.id]);
        expect(cache().facts.size).toBe(0);
        expect(cache().version).toBe(kept);
      }
    } finally {
      // The next collection event that changes facts writes it again, as the projection does.
      await setCollectionPermissions(h, owner, held.id, [{ subject_type: 'user', subject_id: guest.id, flags: WRITE }]);
    }
    expect(await version()).not.toBeNull();
    expect((await listed(owner))(asset.id)?.collection_ids).toEqual([held.id]);
    expect(cache().version).toBe(await version());
  });

  it('a deletion and a move are new versions too', async () => {
    const doomed = await createCollection(h, owner, { title: 'Doomed' });
    const before = await version();
    await request(h.commandApp).delete(`/api/collections/${doomed.id}/`).set(bearer(owner)).expect(204);
    const deleted = await version();
    expect(deleted).not.toBe(before);
    const parent = await createCollection(h, owner, { title: 'New parent' });
    await moveCollection(h, owner, held.id, parent.id);
    expect(await version()).not.toBe(deleted);
  });
});
