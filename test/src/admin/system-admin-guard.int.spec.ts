import { randomUUID } from 'node:crypto';
import { systemAccess, users } from '@cairn/domain';
import { streamLock } from '@cairn/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Shape } from '../support/harness.ts';
import { createNamedUser, type TestUser } from './admin-fixtures.ts';

type AdminUser = { id: string; is_active: boolean; is_system_admin: boolean };
type Change = { is_active?: boolean; is_system_admin?: boolean };

describe.each<Shape>(['all', 'split'])('the last-administrator guard (%s)', (shape) => {
  let h: Harness;
  let root: TestUser;
  let plain: TestUser;
  /** The one active administrator left by the last concurrency round. */
  let survivor: TestUser;
  const patch = (actor: TestUser, target: { id: string }, change: Change) =>
    request(h.commandApp).patch(`/api/admin/users/${target.id}/`).auth(actor.token, { type: 'bearer' }).send(change);

  /** Active system administrators, as the read model shows them. */
  const activeAdmins = async (viewer: TestUser) => {
    const res = await request(h.queryApp).get('/api/admin/users/').query({ page_size: '500' }).auth(viewer.token, { type: 'bearer' }).expect(200);
    return (res.body.results as AdminUser[]).filter((u) => u.is_active && u.is_system_admin).map((u) => u.id).sort();
  };
  /** ...and as the history that the guard decides on shows them. */
  const adminsInHistory = async () => {
    const stream = await h.resources.eventStore.readStream(systemAccess.systemAccessStream);
    const state = stream.events.reduce(
      (s, e) => systemAccess.evolveSystemAccess(s, { type: e.type, data: e.data } as systemAccess.SystemAccessEvent),
      systemAccess.initialSystemAccessState,
    );
    return systemAccess.activeSystemAdmins(state).sort();
  };

  beforeAll(async () => {
    h = await startHarness(shape);
    root = await createNamedUser(h, { name: 'Root', admin: true });
    plain = await createNamedUser(h, { name: 'Plain' });
    survivor = root;
  });
  afterAll(async () => h.close());

  it('enrolls registered administrators, and only them, in the system access history', async () => {
    const stream = await h.resources.eventStore.readStream(systemAccess.systemAccessStream);
    expect(stream.events.map((e) => ({ type: e.type, data: e.data }))).toEqual([{ type: 'UserAccessEnrolled', data: { userId: root.id, isSystemAdmin: true } }]);
  });

  it('refuses to deactivate or demote the only active system administrator with 409', async () => {
    for (const change of [{ is_active: false }, { is_system_admin: false }, { is_active: false, is_system_admin: false }]) {
      const res = await patch(root, root, change).expect(409);
      expect(res.body).toMatchObject({ status: 409, code: 'last_system_admin' });
    }
    expect(await activeAdmins(root)).toEqual([root.id]);
    // Changes that remove no administrator are never refused.
    await patch(root, plain, { is_active: false }).expect(200);
    await patch(root, plain, { is_active: true }).expect(200);
  });

  it('allows the change while another active administrator remains, and counts only active ones', async () => {
    const bea = await createNamedUser(h, { name: 'Bea', admin: true });
    expect((await patch(root, bea, { is_system_admin: false }).expect(200)).body).toMatchObject({ id: bea.id, is_system_admin: false, is_active: true });
    // The demoted administrator is an ordinary user at once.
    await request(h.queryApp).get('/api/admin/users/').auth(bea.token, { type: 'bearer' }).expect(403);
    await patch(root, bea, { is_system_admin: true }).expect(200);

    await patch(root, bea, { is_active: false }).expect(200);
    // Bea is still an administrator, but deactivated: Root is the last active one.
    expect((await patch(root, root, { is_system_admin: false }).expect(409)).body.code).toBe('last_system_admin');
    await patch(root, bea, { is_active: true }).expect(200);
    expect(await activeAdmins(root)).toEqual([root.id, bea.id].sort());

    await patch(bea, root, { is_system_admin: false }).expect(200);
    expect(await activeAdmins(bea)).toEqual([bea.id]);
    await patch(bea, root, { is_system_admin: true }).expect(200);
  });

  it('repairs a registration that stopped before enrollment', async () => {
    const id = randomUUID();
    const metadata = { actorId: null, requestId: null, correlationId: id, causationId: null, occurredAt: new Date().toISOString() };
    const { position } = await h.resources.eventStore.appendToStream(
      users.userStream(id),
      [{ id: randomUUID(), type: 'UserRegistered', schemaVersion: 1, data: { id, email: `half-${id}@example.org`, name: 'Half Registered', isSystemAdmin: true }, metadata }],
      { expectedVersion: 'none' },
    );
    expect(position).toBeDefined();
    await expect.poll(async () => (await request(h.queryApp).get(`/api/admin/users/${id}/`).auth(root.token, { type: 'bearer' })).status).toBe(200);
    await patch(root, { id }, { is_active: false }).expect(200);
    const stream = await h.resources.eventStore.readStream(systemAccess.systemAccessStream);
    expect(stream.events.slice(-2).map((e) => ({ type: e.type, data: e.data }))).toEqual([
      { type: 'UserAccessEnrolled', data: { userId: id, isSystemAdmin: true } },
      { type: 'UserDeactivated', data: { userId: id } },
    ]);
  });

  /** Two fresh administrators who are the only active ones. */
  const onlyTwoAdmins = async (viewer: TestUser, round: number) => {
    const x = await createNamedUser(h, { name: `Round ${round} X`, admin: true });
    const y = await createNamedUser(h, { name: `Round ${round} Y`, admin: true });
    for (const other of await activeAdmins(viewer)) if (other !== x.id && other !== y.id) await patch(x, { id: other }, { is_system_admin: false }).expect(200);
    expect(await activeAdmins(x)).toEqual([x.id, y.id].sort());
    return [x, y] as const;
  };

  /**
   * Holds the lock that every append to `system_access` must take, until both requests
   * have decided on the same history and wait to append: the worst interleaving, every
   * time, instead of whenever the scheduler happens to produce it.
   */
  const withAppendsHeld = async <T>(waiting: number, run: () => Promise<T>): Promise<T> => {
    const client = await h.resources.pool.connect();
    try {
      await client.query('begin');
      const [k1, k2] = streamLock(systemAccess.systemAccessStream).key;
      await client.query('select pg_advisory_xact_lock($1::int, $2::int)', [k1, k2]);
      const result = run();
      await expect
        .poll(async () => {
          // From another session: inside a transaction, pg_stat_activity is a frozen snapshot.
          const { rows } = await h.resources.pool.query<{ n: number }>(
            "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and wait_event = 'advisory' and query like 'begin; select pg_advisory_xact_lock%'",
          );
          return rows[0]?.n;
        }, { timeout: 5000, interval: 20 })
        .toBe(waiting);
      await client.query('rollback');
      return await result;
    } finally {
      client.release();
    }
  };

  const kinds: [Change, Change][] = [
    [{ is_system_admin: false }, { is_system_admin: false }],
    [{ is_active: false }, { is_active: false }],
    [{ is_active: false }, { is_system_admin: false }],
  ];

  it('leaves exactly one active administrator when two demote each other at once', async () => {
    for (let round = 0; round < 6; round += 1) {
      const [x, y] = await onlyTwoAdmins(survivor, round);
      const [xChange, yChange] = kinds[round % kinds.length] ?? [{}, {}];
      const [byX, byY] = await withAppendsHeld(2, () => Promise.all([patch(x, y, xChange), patch(y, x, yChange)]));
      expect([byX.status, byY.status].sort()).toEqual([200, 409]);
      expect((byX.status === 409 ? byX : byY).body.code).toBe('last_system_admin');
      survivor = byX.status === 200 ? x : y;
      expect(await activeAdmins(survivor)).toEqual([survivor.id]);
      expect(await adminsInHistory()).toEqual([survivor.id]);
    }
  });

  it('never lets both succeed however the requests interleave', async () => {
    for (let round = 0; round < 4; round += 1) {
      const [x, y] = await onlyTwoAdmins(survivor, 10 + round);
      const [xChange, yChange] = kinds[round % kinds.length] ?? [{}, {}];
      const [byX, byY] = await Promise.all([patch(x, y, xChange), patch(y, x, yChange)]);
      // The loser may also have arrived after the winner committed: then it is no longer
      // an (active) administrator and is refused as such.
      expect([byX.status, byY.status].filter((s) => s === 200)).toHaveLength(1);
      const loser = byX.status === 200 ? byY : byX;
      expect([409, 403, 401]).toContain(loser.status);
      survivor = byX.status === 200 ? x : y;
      expect(await adminsInHistory()).toEqual([survivor.id]);
      expect(await activeAdmins(survivor)).toEqual([survivor.id]);
    }
  });
});
