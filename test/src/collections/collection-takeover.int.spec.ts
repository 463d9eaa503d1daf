import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset, setPermissions } from '../assets/assets-fixtures.ts';
import { addMember, createProject, join, organization } from '../projects/projects-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createCollection, setCollectionPermissions } from './collections-fixtures.ts';

/**
 * Issue 23, finding 1: a reader took over an asset through a collection of his own (all
 * flags on it, then attach). Putting something under a collection is an access decision
 * (DECISIONS.md 2): MANAGE on the asset and WRITE_METADATA on the collection.
 */
describe('putting an asset in a collection needs MANAGE on it', () => {
  let h: Harness;
  let owner: User;
  let reader: User;

  const flagsOf = async (caller: User, assetId: string) => {
    const res = await request(h.queryApp).get(`/api/assets/${assetId}/`).set(bearer(caller));
    return res.status === 200 ? (res.body as { effective_flags: number }).effective_flags : res.status;
  };
  const attach = (caller: User, collectionId: string, assetIds: string[]) =>
    request(h.commandApp).post(`/api/collections/${collectionId}/assets/`).set(bearer(caller)).send({ asset_ids: assetIds });

  beforeAll(async () => {
    h = await startHarness('all');
    owner = await h.createUser();
    reader = await h.createUser();
  }, 120_000);
  afterAll(async () => h?.close());

  it('refuses the takeover: a public asset attached to the reader\'s own collection gives him nothing', async () => {
    const asset = await createAsset(h, owner, { title: 'Public record' });
    await setPermissions(h, owner, asset.id, [{ subject_type: 'public', subject_id: null, flags: 1 }]);
    const mine = await createCollection(h, reader, { title: 'Mine' });
    await setCollectionPermissions(h, reader, mine.id, [{ subject_type: 'user', subject_id: reader.id, flags: 511 }]);

    const res = await attach(reader, mine.id, [asset.id]);
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(res.body).toMatchObject({ status: 403, code: 'permission_denied' });
    expect(await flagsOf(reader, asset.id)).toBe(1);
    for (const path of ['content/', 'notes/']) expect((await request(h.queryApp).get(`/api/assets/${asset.id}/${path}`).set(bearer(reader))).status).toBe(403);
    const del = await request(h.commandApp).delete(`/api/assets/${asset.id}/`).set(bearer(reader));
    expect(del.status).toBe(403);
    const inIt = await request(h.queryApp).get(`/api/collections/${mine.id}/assets/`).set(bearer(reader));
    expect(inIt.body).toEqual([]);
  });

  it('refuses every flag but MANAGE too, all or nothing across the list', async () => {
    const mineToo = await createAsset(h, reader, { title: 'Reader\'s own' });
    const shared = await createAsset(h, owner, { title: 'Shared for editing' });
    await setPermissions(h, owner, shared.id, [{ subject_type: 'user', subject_id: reader.id, flags: 511 & ~256 }]);
    const mine = await createCollection(h, reader, { title: 'Editing' });
    const res = await attach(reader, mine.id, [mineToo.id, shared.id]);
    expect(res.status).toBe(403);
    const inIt = await request(h.queryApp).get(`/api/collections/${mine.id}/assets/`).set(bearer(reader));
    expect(inIt.body).toEqual([]);
  });

  it('attaches with MANAGE, and the owner may take it out of a collection he cannot see', async () => {
    const asset = await createAsset(h, owner, { title: 'Delegated' });
    await setPermissions(h, owner, asset.id, [{ subject_type: 'user', subject_id: reader.id, flags: 1 | 256 }]);
    const hidden = await createCollection(h, reader, { title: 'Reader only' });
    await setCollectionPermissions(h, reader, hidden.id, [{ subject_type: 'public', subject_id: null, flags: 1 }]);
    const res = await attach(reader, hidden.id, [asset.id]);
    expect(res.status, JSON.stringify(res.body)).toBe(204);

    const other = await h.createUser();
    expect(await flagsOf(other, asset.id)).toBe(1);
    // The collection is public now; make it the reader's alone again, hidden from the owner.
    await setCollectionPermissions(h, reader, hidden.id, [{ subject_type: 'user', subject_id: other.id, flags: 1 }]);
    expect((await request(h.queryApp).get(`/api/collections/${hidden.id}/`).set(bearer(owner))).status).toBe(404);
    expect(await flagsOf(other, asset.id)).toBe(1);
    // Its manager sees where it is, hidden or not; the collection's reader sees only what he may.
    const seenByOwner = await request(h.queryApp).get(`/api/assets/${asset.id}/`).set(bearer(owner));
    expect(seenByOwner.body.collection_ids).toEqual([hidden.id]);

    const out = await request(h.commandApp).delete(`/api/collections/${hidden.id}/assets/${asset.id}/`).set(bearer(owner));
    expect(out.status, JSON.stringify(out.body)).toBe(204);
    expect(await flagsOf(other, asset.id)).toBe(404);
  });

  it('answers a reader who lacks MANAGE the same 404 for a hidden collection as for a random id', async () => {
    const asset = await createAsset(h, owner, { title: 'Read only' });
    await setPermissions(h, owner, asset.id, [{ subject_type: 'user', subject_id: reader.id, flags: 1 }]);
    const hidden = await createCollection(h, owner, { title: 'Owner only' });
    await request(h.commandApp).post(`/api/collections/${hidden.id}/assets/`).set(bearer(owner)).send({ asset_ids: [asset.id] }).expect(204);
    const a = await request(h.commandApp).delete(`/api/collections/${hidden.id}/assets/${asset.id}/`).set(bearer(reader));
    const b = await request(h.commandApp).delete(`/api/collections/${crypto.randomUUID()}/assets/${asset.id}/`).set(bearer(reader));
    expect(a.status).toBe(404);
    expect(a.body).toEqual(b.body);
  });

  it('creates an asset in a collection only for who would manage it', async () => {
    const orgId = await organization(h, 'Takeover Lab');
    const admin = await h.createUser();
    const member = await h.createUser();
    await join(h, orgId, admin, 'admin');
    await join(h, orgId, member);
    const project = await createProject(h, admin, orgId, 'Takeover project');
    await addMember(h, admin, project.id, member, 'member');
    const body = { title: 'In the project tree', owner_type: 'project', owner_id: project.id, collection_id: project.root_collection_id };
    const byMember = await request(h.commandApp).post('/api/assets/').set(bearer(member)).send(body);
    expect(byMember.status, JSON.stringify(byMember.body)).toBe(403);
    const byAdmin = await request(h.commandApp).post('/api/assets/').set(bearer(admin)).send(body);
    expect(byAdmin.status, JSON.stringify(byAdmin.body)).toBe(201);
    // A member still creates project assets; they go in no collection until an admin puts them there.
    const loose = await request(h.commandApp).post('/api/assets/').set(bearer(member)).send({ ...body, collection_id: undefined });
    expect(loose.status).toBe(201);
  });
});
