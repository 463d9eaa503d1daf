import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createAsset } from './assets-fixtures.ts';

describe('notes, markdown note and relationships, first slice', () => {
  let h: Harness;
  let owner: User;
  beforeAll(async () => {
    h = await startHarness('all');
    owner = await h.createUser();
  });
  afterAll(async () => h.close());

  it('works end to end', async () => {
    const a = await createAsset(h, owner, { title: 'A' });
    const b = await createAsset(h, owner, { title: 'B' });
    const note = await request(h.commandApp).post(`/api/assets/${a.id}/notes/`).set(bearer(owner)).send({ content: 'hello' }).expect(201);
    expect(note.body).toMatchObject({ asset_id: a.id, author_id: owner.id, content: 'hello' });
    expect((await request(h.queryApp).get(`/api/assets/${a.id}/notes/`).set(bearer(owner)).expect(200)).body).toHaveLength(1);
    await request(h.queryApp).get(`/api/assets/${a.id}/markdown-note/`).set(bearer(owner)).expect(404);
    const racing = await Promise.all([1, 2, 3].map((i) => request(h.commandApp).put(`/api/assets/${a.id}/markdown-note/`).set(bearer(owner)).send({ content: `# v${i}\n<script>x</script>` })));
    expect(racing.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    const md = await request(h.queryApp).get(`/api/assets/${a.id}/markdown-note/?format=html`).set(bearer(owner)).expect(200);
    expect(md.body.html).toContain('<h1>');
    expect(md.body.html).not.toContain('<script>');
    const rel = await request(h.commandApp).post(`/api/assets/${a.id}/relationships/`).set(bearer(owner)).send({ to_asset_id: b.id, relationship_type: 'References' }).expect(201);
    expect(rel.body).toMatchObject({ from_asset_id: a.id, to_asset_id: b.id, relationship_type: 'References' });
    const dups = await Promise.all([1, 2, 3].map(() => request(h.commandApp).post(`/api/assets/${a.id}/relationships/`).set(bearer(owner)).send({ to_asset_id: b.id, relationship_type: 'Cites' })));
    expect(dups.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    await request(h.commandApp).post(`/api/assets/${a.id}/relationships/`).set(bearer(owner)).send({ to_asset_id: a.id, relationship_type: 'Cites' }).expect(400);
    expect((await request(h.queryApp).get(`/api/assets/${b.id}/relationships/?direction=incoming`).set(bearer(owner)).expect(200)).body).toHaveLength(2);
    await request(h.commandApp).delete(`/api/assets/${b.id}/`).set(bearer(owner)).expect(204);
    expect((await request(h.queryApp).get(`/api/assets/${a.id}/relationships/`).set(bearer(owner)).expect(200)).body).toHaveLength(0);
  });
});
