import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { factsVersionSql, heldFactsCacheOf, runPage, type PageRow } from '@cairn/projections';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness, type Shape } from '../support/harness.ts';
import { createAsset, setPermissions, type Asset } from './assets-fixtures.ts';
import { attachAssets, createCollection, moveCollection, setCollectionPermissions, type Collection } from '../collections/collections-fixtures.ts';

const READ = 1;
const WRITE = 2;
const LIST = 64;

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
  // A commit, so that the read cache (docs/read-cache.md) does not answer the same listing again.
  const commit = async () => void (await h.resources.pool.query('select pg_current_xact_id()'));
  const version = async () => (await sql<{ v: string }>`select ${factsVersionSql} as v`.execute(h.resources.db)).rows[0]?.v ?? null;

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
    // Every collection's facts are read once in the background for a version first seen: wait for it.
    await cache().loading;
    expect(cache().version).toBe(await version());
    expect(cache().facts.has(held.id)).toBe(true);
    // Kept facts that say otherwise show in the answer: the page read them, not the table.
    const truth = cache().facts.get(held.id);
    if (!truth) throw new Error('no kept facts');
    cache().facts.set(held.id, { ...truth, readers: `u:${guest.id}`, entries: JSON.stringify({ [`u:${guest.id}`]: READ | WRITE }) });
    try {
      await commit();
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
    // The last reading of them all is long enough ago (heldFactsLoadedEvery).
    cache().loadedAt = undefined;
    const granted = (await listed(guest))(asset.id);
    expect(granted?.collection_ids).toEqual([held.id]);
    expect(granted?.effective_flags).toBe(READ | WRITE);
    expect(cache().version).toBe(await version());
    // The new version's collections, all of them, read once in the background: those no page named too.
    await cache().loading;
    const { rows } = await h.resources.pool.query<{ id: string }>('select id::text from collections');
    expect(rows.length).toBeGreaterThan(1);
    for (const { id } of rows) expect(cache().facts.has(id), id).toBe(true);
    // Revoked: the next page no longer names the collection nor gives its flags.
    await setCollectionPermissions(h, owner, held.id, []);
    const revoked = (await listed(guest))(asset.id);
    expect(revoked?.collection_ids).toEqual([]);
    expect(revoked?.effective_flags).toBe(READ);
    // A version soon after another is not read all at once again: its pages read what they name.
    expect(cache().version).toBe(await version());
    expect(cache().loading ?? null).toBeNull();
    expect(cache().facts.size).toBeLessThan(rows.length);
    // Once the interval has passed, the next page of that version starts it.
    cache().loadedAt = Date.now() - 10_001;
    await commit();
    await listed(guest);
    await cache().loading;
    for (const { id } of rows) expect(cache().facts.has(id), id).toBe(true);
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

  it('a process that kept nothing reads its collections\' facts; a version removed by hand, or a migration applied, is a new version', async () => {
    // A process that kept nothing yet (null), and one that kept facts under a version since gone.
    for (const kept of [null, 'gone@1@x']) {
      Object.assign(cache(), { version: kept, bytes: 0 });
      cache().facts.clear();
      await commit();
      const page = await listed(owner);
      expect(page(asset.id)?.collection_ids).toEqual([held.id]);
      expect(cache().version).toBe(await version());
      expect(cache().facts.has(held.id)).toBe(true);
    }
    const before = await version();
    await h.resources.pool.query('delete from collection_facts_version');
    try {
      expect(await version()).toMatch(/^none@/);
      expect((await listed(owner))(asset.id)?.collection_ids).toEqual([held.id]);
      expect(cache().version).toBe(await version());
      // A reset empties the table by truncating it (checkpoints.ts): its replay writes the same ids again, in another file.
      const emptied = await version();
      await h.resources.pool.query('truncate collection_facts_version');
      expect(await version()).not.toBe(emptied);
    } finally {
      // The next move, change of entries or deletion writes it again, as the projection does.
      await setCollectionPermissions(h, owner, held.id, [{ subject_type: 'user', subject_id: guest.id, flags: WRITE }]);
    }
    expect(await version()).not.toBe(before);
    expect(await version()).not.toMatch(/^none@/);
    // A migration may rewrite what the collections' generated columns hold: the version names those applied, one applied out of order too.
    const unmigrated = await version();
    for (const name of ['9999_a_later_migration.sql', '0001a_a_backported_migration.sql']) {
      await h.resources.pool.query('insert into schema_migrations (name) values ($1)', [name]);
      try {
        expect(await version()).not.toBe(unmigrated);
      } finally {
        await h.resources.pool.query('delete from schema_migrations where name = $1', [name]);
      }
    }
    expect(await version()).toBe(unmigrated);
  });

  it('reads a page again without the kept facts when a collection changed between the page and its missing facts', async () => {
    Object.assign(cache(), { version: await version(), bytes: 0 });
    cache().facts.clear();
    const given: (string | null)[] = [];
    // The page's row, the version its snapshot reads and, when given a version, a change of it
    // committed by the same statement (which its own snapshot does not see).
    const statementFor = (known: string | null) => {
      given.push(known);
      const bump = known === null ? sql`` : sql`with bump as (update collection_facts_version set version = gen_random_uuid()::text returning 1) `;
      return sql<PageRow>`${bump}select 1 as phase, '2026-01-01T00:00:00.000000Z' as created_at, ${asset.id}::uuid::text as id, true as hit, null as doc, null as own, null as entries,
          null as readers, ${held.id}::text as held_in
        union all select 3, null, k.id::text, false, array_to_string(k.asset_readers, ','), k.entry_grants::text, k.inherited_grants::text, array_to_string(k.readers, ','), null
          from collections k where k.id = ${held.id}::uuid and ${known}::text is null
        union all select 6, null, null, false, null, null, null, ${factsVersionSql}, null`;
    };
    const rows = await runPage(h.queryResources.db, statementFor, { p: ['*', `u:${owner.id}`] }, false);
    expect(given).toEqual([expect.any(String), null]);
    expect(rows.map((r) => r.id)).toEqual([asset.id]);
    expect(rows[0]?.collections?.get(held.id)?.visible).toBe(true);
  });

  it("a collection's own page answers from the kept facts too, and a change of its entries shows at once", async () => {
    // LIST lets the guest list the collection's assets; its flags are the asset's too.
    await setCollectionPermissions(h, owner, held.id, [{ subject_type: 'user', subject_id: guest.id, flags: READ | LIST }]);
    const inCollection = async () => {
      const body = (await request(h.queryApp).get(`/api/collections/${held.id}/assets/`).set(bearer(guest)).expect(200)).body as Asset[];
      return body.find((a) => a.id === asset.id);
    };
    const first = await inCollection();
    expect(first?.collection_ids).toEqual([held.id]);
    expect(first?.effective_flags).toBe(READ | LIST);
    await cache().loading;
    expect(cache().version).toBe(await version());
    // Kept facts that say otherwise show in the collection's page: it read them, not the table.
    const truth = cache().facts.get(held.id);
    if (!truth) throw new Error('no kept facts');
    cache().facts.set(held.id, { ...truth, entries: JSON.stringify({ [`u:${guest.id}`]: READ | LIST | WRITE }) });
    try {
      await commit();
      expect((await inCollection())?.effective_flags).toBe(READ | LIST | WRITE);
      // Kept readers that leave the guest out hide the collection from the asset's answer.
      cache().facts.set(held.id, { ...truth, readers: `u:${owner.id}` });
      await commit();
      expect((await inCollection())?.collection_ids).toEqual([]);
    } finally {
      cache().facts.set(held.id, truth);
    }
    // A change of the collection's entries is a new version: the next page reads them again.
    cache().loadedAt = undefined;
    await setCollectionPermissions(h, owner, held.id, [{ subject_type: 'user', subject_id: guest.id, flags: READ | LIST | WRITE }]);
    expect((await inCollection())?.effective_flags).toBe(READ | LIST | WRITE);
    expect(cache().version).toBe(await version());
    await setCollectionPermissions(h, owner, held.id, [{ subject_type: 'user', subject_id: guest.id, flags: READ | LIST }]);
    expect((await inCollection())?.effective_flags).toBe(READ | LIST);
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
