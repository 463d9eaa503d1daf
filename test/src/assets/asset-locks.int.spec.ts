import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness, type Shape } from '../support/harness.ts';
import { createAsset, setPermissions, type Asset } from './assets-fixtures.ts';

const READ = 1;
const WRITE = 2;
const DELETE = 128;
const MANAGE = 256;

/** DECISIONS.md 1: the body of a refused write on a locked asset. */
const lockedError = { status: 423, code: 'asset_locked', detail: expect.any(String) };

describe.each<Shape>(['all', 'split'])('asset locks (%s)', (shape) => {
  let h: Harness;
  let owner: User;
  let writer: User;
  let manager: User;
  let systemAdmin: User;
  const write = () => request(h.commandApp);
  const read = () => request(h.queryApp);

  const lock = (caller: User, id: string, body: Record<string, unknown>) => write().post(`/api/assets/${id}/lock/`).set(bearer(caller)).send(body);
  const getAsset = async (caller: User, id: string) => (await read().get(`/api/assets/${id}/`).set(bearer(caller)).expect(200)).body as Asset;
  const eventCount = async () => Number((await h.resources.pool.query<{ n: string }>('select count(*) as n from events')).rows[0]?.n);

  /** An asset of the owner's: the writer holds READ_METADATA|WRITE_METADATA|DELETE, the manager READ_METADATA|MANAGE. */
  async function sharedAsset(title: string): Promise<Asset> {
    const asset = await createAsset(h, owner, { title });
    await setPermissions(h, owner, asset.id, [
      { subject_type: 'user', subject_id: writer.id, flags: READ | WRITE | DELETE },
      { subject_type: 'user', subject_id: manager.id, flags: READ | MANAGE },
    ]);
    return asset;
  }

  beforeAll(async () => {
    h = await startHarness(shape);
    [owner, writer, manager, systemAdmin] = [await h.createUser(), await h.createUser(), await h.createUser(), await h.createUser({ admin: true })];
  });
  afterAll(async () => h.close());

  it('answers the lock with 200 and the locked asset, as later reads show it', async () => {
    const asset = await sharedAsset('Lock me');
    const res = await lock(owner, asset.id, { locked: true, reason: '  under review ' }).expect(200);
    const locked = res.body as Asset;
    expect(locked).toEqual({ ...asset, is_locked: true, locked_by: owner.id, locked_at: expect.any(String), lock_reason: 'under review', updated_at: expect.any(String) });
    expect(new Date(locked.locked_at ?? '').toISOString()).toBe(locked.locked_at);
    expect(locked.updated_at >= asset.updated_at).toBe(true);
    expect(res.headers['x-consistency-token']).toMatch(/^[0-9a-z]+\.[0-9a-z]+(\.[0-9a-z]+)?$/);
    expect(await getAsset(owner, asset.id)).toEqual(locked);
    expect(await getAsset(writer, asset.id)).toMatchObject({ is_locked: true, locked_by: owner.id, lock_reason: 'under review', locked_at: locked.locked_at });

    // The same lock again records nothing; a new reason re-locks, naming who locked it.
    const events = await eventCount();
    expect((await lock(owner, asset.id, { locked: true, reason: 'under review' }).expect(200)).body).toEqual(locked);
    expect(await eventCount()).toBe(events);
    const relocked = (await lock(manager, asset.id, { locked: true, reason: 'embargo' }).expect(200)).body as Asset;
    expect(relocked).toMatchObject({ is_locked: true, locked_by: manager.id, lock_reason: 'embargo' });

    // Unlocking clears every lock field; unlocking again records nothing.
    const unlocked = (await lock(owner, asset.id, { locked: false }).expect(200)).body as Asset;
    expect(unlocked).toMatchObject({ is_locked: false, locked_by: null, locked_at: null, lock_reason: '' });
    const afterUnlock = await eventCount();
    expect((await lock(owner, asset.id, { locked: false, reason: 'again' }).expect(200)).body).toEqual(unlocked);
    expect(await eventCount()).toBe(afterUnlock);
    // A lock without a reason is a lock.
    expect((await lock(owner, asset.id, { locked: true }).expect(200)).body).toMatchObject({ is_locked: true, lock_reason: '' });
  });

  it('refuses PATCH and DELETE with 423 asset_locked while locked, for everyone, and allows them again once unlocked', async () => {
    const asset = await sharedAsset('Frozen');
    await lock(owner, asset.id, { locked: true, reason: 'frozen' }).expect(200);
    const events = await eventCount();
    for (const caller of [owner, writer, systemAdmin]) {
      expect((await write().patch(`/api/assets/${asset.id}/`).set(bearer(caller)).send({ title: 'Thawed' }).expect(423)).body).toEqual(lockedError);
      expect((await write().delete(`/api/assets/${asset.id}/`).set(bearer(caller)).expect(423)).body).toEqual(lockedError);
    }
    // Metadata, tags, the owner: every field is frozen.
    expect((await write().patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ metadata: { a: 1 } }).expect(423)).body).toEqual(lockedError);
    expect((await write().patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ tags: ['x'] }).expect(423)).body).toEqual(lockedError);
    await write().patch(`/api/assets/${asset.id}/`).set(bearer(systemAdmin)).send({ owner_type: 'user', owner_id: systemAdmin.id }).expect(423);
    expect(await eventCount()).toBe(events);
    expect(await getAsset(owner, asset.id)).toMatchObject({ title: 'Frozen', is_locked: true, owner_id: owner.id });

    // Who may not write or delete learns that (403), not that the asset is locked.
    await write().patch(`/api/assets/${asset.id}/`).set(bearer(manager)).send({ title: 'x' }).expect(403);
    await write().delete(`/api/assets/${asset.id}/`).set(bearer(manager)).expect(403);

    await lock(manager, asset.id, { locked: false }).expect(200);
    expect((await write().patch(`/api/assets/${asset.id}/`).set(bearer(writer)).send({ title: 'Thawed' }).expect(200)).body).toMatchObject({ title: 'Thawed', is_locked: false });
    await write().delete(`/api/assets/${asset.id}/`).set(bearer(writer)).expect(204);
    await read().get(`/api/assets/${asset.id}/`).set(bearer(owner)).expect(404);
  });

  it('keeps stars and permissions changeable while locked (docs: the lock freezes the record, not who may see it)', async () => {
    const asset = await sharedAsset('Locked but shared');
    const newcomer = await h.createUser();
    await lock(owner, asset.id, { locked: true, reason: 'frozen' }).expect(200);
    await write().post(`/api/assets/${asset.id}/star/`).set(bearer(writer)).expect(204);
    expect(await getAsset(writer, asset.id)).toMatchObject({ is_starred: true, is_locked: true });
    await write().delete(`/api/assets/${asset.id}/star/`).set(bearer(writer)).expect(204);
    expect(await getAsset(writer, asset.id)).toMatchObject({ is_starred: false, is_locked: true });

    await write()
      .put(`/api/assets/${asset.id}/permissions/`)
      .set(bearer(manager))
      .send({ permissions: [{ subject_type: 'user', subject_id: manager.id, flags: READ | MANAGE }, { subject_type: 'user', subject_id: newcomer.id, flags: READ }] })
      .expect(200);
    expect(await getAsset(newcomer, asset.id)).toMatchObject({ is_locked: true, effective_flags: READ });
    await write()
      .post('/api/assets/permissions/bulk-merge/')
      .set(bearer(owner))
      .send({ asset_ids: [asset.id], permissions: [{ subject_type: 'user', subject_id: newcomer.id, flags: READ | WRITE }] })
      .expect(204);
    expect(await getAsset(newcomer, asset.id)).toMatchObject({ is_locked: true, effective_flags: READ | WRITE });
    // The new writer is still held back by the lock.
    await write().patch(`/api/assets/${asset.id}/`).set(bearer(newcomer)).send({ title: 'x' }).expect(423);
  });

  it('lets only MANAGE holders lock and unlock: 403 for a writer, 404 for those who cannot read', async () => {
    const asset = await sharedAsset('Guarded lock');
    const stranger = await h.createUser();
    const refused = await lock(writer, asset.id, { locked: true, reason: 'mine' }).expect(403);
    expect(refused.body).toEqual({ status: 403, code: 'permission_denied', detail: expect.any(String) });
    await lock(stranger, asset.id, { locked: true, reason: 'mine' }).expect(404);
    await write().post(`/api/assets/${asset.id}/lock/`).send({ locked: true }).expect(401);
    expect(await getAsset(owner, asset.id)).toMatchObject({ is_locked: false });

    // Locked by the owner, unlocked by another MANAGE holder, and the other way round.
    await lock(owner, asset.id, { locked: true, reason: 'owner' }).expect(200);
    await lock(writer, asset.id, { locked: false }).expect(403);
    expect(await getAsset(writer, asset.id)).toMatchObject({ is_locked: true });
    await lock(manager, asset.id, { locked: false }).expect(200);
    await lock(manager, asset.id, { locked: true, reason: 'manager' }).expect(200);
    expect((await lock(owner, asset.id, { locked: false }).expect(200)).body).toMatchObject({ is_locked: false, locked_by: null });
    await lock(systemAdmin, asset.id, { locked: true, reason: 'admin' }).expect(200);
    expect(await getAsset(owner, asset.id)).toMatchObject({ is_locked: true, locked_by: systemAdmin.id, lock_reason: 'admin' });
  });

  it('validates the lock body with 400', async () => {
    const asset = await sharedAsset('Bodies');
    const missing = await lock(owner, asset.id, { reason: 'no flag' }).expect(400);
    expect(missing.body).toMatchObject({ status: 400, code: 'validation_error', errors: { locked: [expect.any(String)] } });
    await lock(owner, asset.id, { locked: 'yes' }).expect(400);
    const long = await lock(owner, asset.id, { locked: true, reason: 'x'.repeat(1001) }).expect(400);
    expect(long.body.errors).toHaveProperty('reason');
    await write().post(`/api/assets/${asset.id}/lock/`).set(bearer(owner)).expect(400);
    expect(await getAsset(owner, asset.id)).toMatchObject({ is_locked: false });
  });
});
