import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User } from '../support/api.ts';
import { createTestDatabase } from '../support/database.ts';
import { startHarness, type Harness, type Shape } from '../support/harness.ts';

/**
 * Issue 14: a long transaction with an id in ANOTHER database of the same server holds the
 * cluster-wide snapshot horizon back. A write's answer must not wait for it: read models
 * are applied in the append's own transaction (docs/consistency.md).
 */
describe.each<Shape>(['all', 'split'])('a transaction in another database (%s)', (shape) => {
  let h: Harness;
  let admin: User;
  let other: pg.Client;

  beforeAll(async () => {
    h = await startHarness(shape);
    admin = await h.createUser({ admin: true });
    other = new pg.Client({ connectionString: await createTestDatabase() });
    await other.connect();
  });
  afterAll(async () => {
    await other?.end();
    await h?.close();
  });

  it('does not hold writes or their read-back', async () => {
    // The foreign transaction stays open exactly as long as the write and its read-back take:
    // had they depended on it, they would have waited for it (503 after the consistency
    // bound), and other files' log readers are held back no longer than necessary.
    await other.query('begin');
    await other.query('select pg_current_xact_id()');
    try {
      const created = await request(h.commandApp).post('/api/funding-agencies/').set(bearer(admin)).send({ name: 'Under a foreign transaction' });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const read = await request(h.queryApp).get(`/api/funding-agencies/${created.body.id}/`).set(bearer(admin)).set('X-Consistency-Token', created.headers['x-consistency-token'] as string);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect(read.body.name).toBe('Under a foreign transaction');
      // Still open: the write and the read did not wait for it to end.
      expect((await other.query<{ open: boolean }>("select pg_current_xact_id_if_assigned() is not null as open")).rows[0]?.open).toBe(true);
    } finally {
      await other.query('commit');
    }
  });
});
