import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Shape } from '../support/harness.ts';

describe.each<Shape>(['all', 'split'])('reading your writes under concurrent writers (%s)', (shape) => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await startHarness(shape);
    token = (await h.createUser({ admin: true })).token;
  });
  afterAll(async () => h.close());

  it('every response shows its write, and the writer reads it back through the query service at once', async () => {
    const auth = { Authorization: `Bearer ${token}` };
    const clients = 16;
    const writesEach = 6;
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        for (let i = 0; i < writesEach; i += 1) {
          const name = `Client ${c} write ${i}`;
          const created = await request(h.commandApp).post('/api/funding-agencies/').set(auth).send({ name });
          expect(created.status).toBe(201);
          expect(created.body).toMatchObject({ name });
          const id = (created.body as { id: string }).id;
          const createdToken = created.headers['x-consistency-token'];
          expect(createdToken).toEqual(expect.any(String));
          // Another service (its own pool, as another process has): with the token, and without.
          const read = await request(h.queryApp).get(`/api/funding-agencies/${id}/`).set(auth).set('X-Consistency-Token', createdToken as string);
          expect(read.status).toBe(200);
          expect(read.body).toMatchObject({ id, name });
          const untokened = await request(h.queryApp).get(`/api/funding-agencies/${id}/`).set(auth);
          expect(untokened.body).toMatchObject({ id, name });

          const renamed = await request(h.commandApp).patch(`/api/funding-agencies/${id}/`).set(auth).send({ abbreviation: `C${c}W${i}` });
          expect(renamed.status).toBe(200);
          expect(renamed.body).toMatchObject({ id, abbreviation: `C${c}W${i}` });
          const reread = await request(h.queryApp).get(`/api/funding-agencies/${id}/`).set(auth).set('X-Consistency-Token', renamed.headers['x-consistency-token'] as string);
          expect(reread.body).toMatchObject({ id, abbreviation: `C${c}W${i}` });
        }
      }),
    );
    const list = await request(h.queryApp).get('/api/funding-agencies/').set(auth).expect(200);
    expect((list.body as unknown[]).length).toBe(clients * writesEach);
  });
});
