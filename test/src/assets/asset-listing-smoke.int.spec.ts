import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createAsset, type Asset } from './assets-fixtures.ts';

describe('asset listing, first slice', () => {
  let h: Harness;
  let owner: User;
  beforeAll(async () => {
    h = await startHarness('all');
    owner = await h.createUser();
  });
  afterAll(async () => h.close());

  it('pages starred first, then newest first, with signed cursors and the headers', async () => {
    const made: Asset[] = [];
    for (let i = 0; i < 7; i += 1) made.push(await createAsset(h, owner, { title: `A${i}`, tags: i % 2 ? ['odd'] : ['even'], metadata: { n: i, kind: i % 2 ? 'odd' : 'even' } }));
    await request(h.commandApp).post(`/api/assets/${made[1]?.id}/star/`).set(bearer(owner)).expect(204);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const res = await request(h.queryApp).get('/api/assets/').query({ limit: 3, ...(cursor ? { cursor } : {}) }).set(bearer(owner)).expect(200);
      expect(res.headers['x-page-limit']).toBe('3');
      seen.push(...(res.body as Asset[]).map((a) => a.title));
      if (res.headers['x-has-more'] === 'false') break;
      cursor = res.headers['x-next-cursor'] as string;
      expect(cursor).toMatch(/^v1\./);
    }
    expect(seen).toEqual(['A1', 'A6', 'A5', 'A4', 'A3', 'A2', 'A0']);
    const filtered = await request(h.queryApp).get('/api/assets/').query({ tags: 'odd', metadata: ['n:3'] }).set(bearer(owner)).expect(200);
    expect((filtered.body as Asset[]).map((a) => a.title)).toEqual(['A3']);
    const tampered = await request(h.queryApp).get('/api/assets/').query({ cursor: `${cursor ?? ''}x` }).set(bearer(owner)).expect(400);
    expect(tampered.body.code).toBe('invalid_cursor');
    await request(h.queryApp).get('/api/assets/').query({ limit: 'abc' }).set(bearer(owner)).expect(400);
    expect((await request(h.queryApp).get('/api/assets/').query({ limit: 0 }).set(bearer(owner)).expect(200)).headers['x-page-limit']).toBe('1');
    expect((await request(h.queryApp).get('/api/assets/').query({ limit: 5000 }).set(bearer(owner)).expect(200)).headers['x-page-limit']).toBe('1000');
  });
});
