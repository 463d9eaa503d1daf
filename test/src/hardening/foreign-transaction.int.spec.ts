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
    const holding = other.query('begin; select pg_current_xact_id(); select pg_sleep(4); commit');
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    const created = await request(h.commandApp).post('/api/funding-agencies/').set(bearer(admin)).send({ name: 'Under a foreign transaction' }).expect(201);
    const read = await request(h.queryApp).get(`/api/funding-agencies/${created.body.id}/`).set(bearer(admin)).set('X-Consistency-Token', created.headers['x-consistency-token'] as string).expect(200);
    expect(read.body.name).toBe('Under a foreign transaction');
    // Far below the 4 s the other transaction lasts (and the 3 s consistency bound of the harness).
    expect(Date.now() - started).toBeLessThan(2500);
    await holding;
  });
});
