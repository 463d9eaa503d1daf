import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset, setPermissions } from '../assets/assets-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { eventually, fsRepository, grantAllocation, startJobWorkers, upload, type Allocation, type Content } from './storage-fixtures.ts';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
let h: Harness;
let admin: User;
let owner: User;
let reader: User;
let repo: { id: string; dir: string };
let allocation: Allocation;

beforeAll(async () => {
  h = await startHarness('all');
  admin = await h.createUser({ admin: true });
  owner = await h.createUser();
  reader = await h.createUser();
  repo = await fsRepository(h, 'primary');
  allocation = await grantAllocation(h, admin, { owner_type: 'user', owner_id: owner.id, repository_id: repo.id, limit_bytes: 10_000 });
});
afterAll(async () => {
  await h.close();
});

describe('content of an asset on an fs repository', () => {
  it('uploads multipart bytes: record with size and SHA-256, usage charged, bytes in the repository', async () => {
    const asset = await createAsset(h, owner);
    const bytes = Buffer.from('id,name\n1,alpha\n2,beta\n');
    const res = await upload(h, owner, asset.id, bytes, { filename: 'rows.csv', contentType: 'text/csv' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const content = res.body as Content;
    expect(content).toMatchObject({ asset_id: asset.id, repository_id: repo.id, allocation_id: allocation.id, filename: 'rows.csv', size: bytes.length, sha256: sha(bytes), content_type: 'text/csv', origin: 'upload' });
    expect(res.headers['x-consistency-token']).toBeTruthy();

    const list = await request(h.queryApp).get(`/api/assets/${asset.id}/content/`).set(bearer(owner));
    expect(list.status).toBe(200);
    expect(list.body.map((c: Content) => c.id)).toEqual([content.id]);
    const one = await request(h.queryApp).get(`/api/assets/${asset.id}/content/${content.id}/`).set(bearer(owner));
    expect(one.body.sha256).toBe(sha(bytes));

    const alloc = await request(h.queryApp).get(`/api/allocations/${allocation.id}/`).set(bearer(owner));
    expect(alloc.body.used_bytes).toBeGreaterThanOrEqual(bytes.length);
    const files = await readdir(path.join(repo.dir, 'assets', asset.id));
    expect(files).toEqual([content.id]);
  });

  it('refuses content past the allocation with 409 allocation_exceeded, storing nothing', async () => {
    const small = await h.createUser();
    await grantAllocation(h, admin, { owner_type: 'user', owner_id: small.id, repository_id: repo.id, limit_bytes: 100 });
    const asset = await createAsset(h, small);
    const res = await upload(h, small, asset.id, Buffer.alloc(101, 1));
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('allocation_exceeded');
    const list = await request(h.queryApp).get(`/api/assets/${asset.id}/content/`).set(bearer(small));
    expect(list.body).toEqual([]);
    await expect(readdir(path.join(repo.dir, 'assets', asset.id))).rejects.toThrow();
  });

  it('never lets concurrent uploads together go past the limit', async () => {
    const racer = await h.createUser();
    const racing = await grantAllocation(h, admin, { owner_type: 'user', owner_id: racer.id, repository_id: repo.id, limit_bytes: 1000 });
    const asset = await createAsset(h, racer);
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => upload(h, racer, asset.id, Buffer.alloc(200, i))));
    const created = results.filter((r) => r.status === 201).length;
    expect(results.every((r) => r.status === 201 || (r.status === 409 && r.body.code === 'allocation_exceeded'))).toBe(true);
    expect(created).toBe(5);
    const alloc = await request(h.queryApp).get(`/api/allocations/${racing.id}/`).set(bearer(racer));
    expect(alloc.body.used_bytes).toBe(1000);
    expect(alloc.body.content_count).toBe(5);
    expect((await readdir(path.join(repo.dir, 'assets', asset.id))).length).toBe(5);
  });

  it('puts new content of an asset created in a collection on the repository the collection prefers', async () => {
    const preferred = await fsRepository(h, 'preferred');
    await grantAllocation(h, admin, { owner_type: 'user', owner_id: owner.id, repository_id: preferred.id, limit_bytes: 10_000 });
    const collection = await request(h.commandApp).post('/api/collections/').set(bearer(owner)).send({ title: 'Prefers', preferred_repository_id: preferred.id });
    expect(collection.status, JSON.stringify(collection.body)).toBe(201);
    const inCollection = await createAsset(h, owner, { collection_id: collection.body.id });
    const there = await upload(h, owner, inCollection.id, Buffer.from('to the preferred repository'));
    expect(there.body).toMatchObject({ repository_id: preferred.id });
    // Named explicitly, another repository wins; an asset outside the collection goes to the default.
    const named = await upload(h, owner, inCollection.id, Buffer.from('named'), { repositoryId: repo.id });
    expect(named.body).toMatchObject({ repository_id: repo.id });
    const elsewhere = await createAsset(h, owner);
    expect((await upload(h, owner, elsewhere.id, Buffer.from('default'))).body).toMatchObject({ repository_id: repo.id });
  });

  it('answers 409 no_allocation when the owner has none', async () => {
    const poor = await h.createUser();
    const asset = await createAsset(h, poor);
    const res = await upload(h, poor, asset.id, Buffer.from('x'));
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('no_allocation');
  });

  it('applies READ_CONTENT and WRITE_CONTENT, 404 for the hidden, 423 when locked', async () => {
    const asset = await createAsset(h, owner);
    expect((await upload(h, reader, asset.id, Buffer.from('x'))).status).toBe(404);
    await setPermissions(h, owner, asset.id, [{ subject_type: 'user', subject_id: reader.id, flags: 1 }]);
    expect((await upload(h, reader, asset.id, Buffer.from('x'))).status).toBe(403);
    expect((await request(h.queryApp).get(`/api/assets/${asset.id}/content/`).set(bearer(reader))).status).toBe(403);
    await setPermissions(h, owner, asset.id, [{ subject_type: 'user', subject_id: reader.id, flags: 1 | 4 }]);
    expect((await request(h.queryApp).get(`/api/assets/${asset.id}/content/`).set(bearer(reader))).status).toBe(200);

    const lock = await request(h.commandApp).post(`/api/assets/${asset.id}/lock/`).set(bearer(owner)).send({ locked: true, reason: 'frozen' });
    expect(lock.status).toBe(200);
    const res = await upload(h, owner, asset.id, Buffer.from('x'));
    expect(res.status).toBe(423);
    expect(res.body.code).toBe('asset_locked');
  });

  it('deletes a record: usage credited and bytes gone', async () => {
    const asset = await createAsset(h, owner);
    const before = (await request(h.queryApp).get(`/api/allocations/${allocation.id}/`).set(bearer(owner))).body.used_bytes as number;
    const content = (await upload(h, owner, asset.id, Buffer.alloc(50, 7))).body as Content;
    const del = await request(h.commandApp).delete(`/api/assets/${asset.id}/content/${content.id}/`).set(bearer(owner));
    expect(del.status).toBe(204);
    expect((await request(h.queryApp).get(`/api/assets/${asset.id}/content/${content.id}/`).set(bearer(owner))).status).toBe(404);
    const after = (await request(h.queryApp).get(`/api/allocations/${allocation.id}/`).set(bearer(owner))).body.used_bytes as number;
    expect(after).toBe(before);
    expect(await readdir(path.join(repo.dir, 'assets', asset.id))).toEqual([]);
  });

  it('tells the location, with a signed download link that serves the bytes', async () => {
    const asset = await createAsset(h, owner);
    const bytes = Buffer.from('hello, location');
    const content = (await upload(h, owner, asset.id, bytes, { filename: 'hello.txt', contentType: 'text/plain' })).body as Content;
    const res = await request(h.queryApp).get(`/api/assets/${asset.id}/location/`).set(bearer(owner));
    expect(res.status).toBe(200);
    const [entry] = res.body.content;
    expect(entry).toMatchObject({ content_id: content.id, repository_id: repo.id, repository_name: 'primary', kind: 'fs', key: content.key });
    const url = new URL(entry.url as string);
    const download = await request(h.queryApp).get(url.pathname + url.search).buffer(true).parse((r, done) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => done(null, Buffer.concat(chunks)));
    });
    expect(download.status).toBe(200);
    expect(Buffer.compare(download.body as Buffer, bytes)).toBe(0);
    const forged = await request(h.queryApp).get(url.pathname + url.search.replace(/signature=[^&]+/, 'signature=abc'));
    expect(forged.status).toBe(404);
  });

  it('extracts metadata in the background, and again on demand', async () => {
    const workers = await startJobWorkers(h);
    try {
      const asset = await createAsset(h, owner);
      const content = (await upload(h, owner, asset.id, Buffer.from('a,b\n1,2\n3,4\n'), { filename: 't.csv', contentType: 'text/csv' })).body as Content;
      expect(content.metadata_status).toBe('pending');
      const done = await eventually(async () => {
        const res = await request(h.queryApp).get(`/api/assets/${asset.id}/content/${content.id}/`).set(bearer(owner));
        return res.body.metadata_status === 'succeeded' ? (res.body as Content) : null;
      });
      expect(JSON.stringify(done.metadata)).toContain('row_count');
      const again = await request(h.commandApp).post(`/api/assets/${asset.id}/content/${content.id}/extract-metadata/`).set(bearer(owner));
      expect(again.status).toBe(200);
      expect(again.body.metadata_status).toBe('succeeded');
      expect(Date.parse(again.body.metadata_extracted_at)).toBeGreaterThanOrEqual(Date.parse(done.metadata_extracted_at ?? ''));
    } finally {
      await workers.stop();
    }
  });

  it('migrates an asset to another repository, then shows the history', async () => {
    const workers = await startJobWorkers(h);
    try {
      const target = await fsRepository(h, 'archive');
      await grantAllocation(h, admin, { owner_type: 'user', owner_id: owner.id, repository_id: target.id, limit_bytes: 10_000 });
      const asset = await createAsset(h, owner);
      const bytes = Buffer.from('move me');
      const content = (await upload(h, owner, asset.id, bytes)).body as Content;
      const start = await request(h.commandApp).post(`/api/assets/${asset.id}/migrations/`).set(bearer(owner)).send({ target_repository_id: target.id });
      expect(start.status, JSON.stringify(start.body)).toBe(201);
      expect(start.body).toMatchObject({ status: 'pending', source_repository_id: repo.id, target_repository_id: target.id });
      const migrating = await request(h.queryApp).get(`/api/assets/${asset.id}/`).set(bearer(owner));
      expect(migrating.body.is_migrating).toBe(true);
      await eventually(async () => {
        const res = await request(h.queryApp).get(`/api/assets/${asset.id}/migrations/`).set(bearer(owner));
        return res.body[0]?.status === 'succeeded';
      });
      const moved = await request(h.queryApp).get(`/api/assets/${asset.id}/content/${content.id}/`).set(bearer(owner));
      expect(moved.body).toMatchObject({ repository_id: target.id, sha256: sha(bytes) });
      expect(await readdir(path.join(target.dir, 'assets', asset.id))).toEqual([content.id]);
      expect(await readdir(path.join(repo.dir, 'assets', asset.id))).toEqual([]);
      const after = await request(h.queryApp).get(`/api/assets/${asset.id}/`).set(bearer(owner));
      expect(after.body.is_migrating).toBe(false);
      const retry = await request(h.commandApp).post(`/api/assets/${asset.id}/migrations/${start.body.id}/retry/`).set(bearer(owner));
      expect(retry.status).toBe(409);
    } finally {
      await workers.stop();
    }
  });
});
