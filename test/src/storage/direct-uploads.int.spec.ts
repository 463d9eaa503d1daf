import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { UploadPartCommand, S3Client } from '@aws-sdk/client-s3';
import { createApp } from '@cairn/cli';
import type { EventStore } from '@cairn/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../assets/assets-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { startS3Server, type S3TestServer } from '../support/s3-server.ts';
import {
  abortUpload,
  allocationOf,
  bothRepositories,
  completeUpload,
  MiB,
  objectOf,
  partOf,
  s3Env,
  sendParts,
  sha,
  startUpload,
  uploadStatus,
  type Repositories,
  type Upload,
} from './direct-upload-fixtures.ts';
import { grantAllocation, type Allocation, type Content } from './storage-fixtures.ts';

// Issue 25: uploads that go straight to storage, on an fs repository (the service's signed
// part URLs) and an s3 one (s3rver; presigned part URLs that plain fetch uses).

const bucket = 'cairn-direct';
let h: Harness;
let s3: S3TestServer;
let admin: User;
let owner: User;
let repos: Repositories;
const allocations: Record<'fs' | 's3', Allocation> = {} as Record<'fs' | 's3', Allocation>;

beforeAll(async () => {
  s3 = await startS3Server();
  await s3.createBucket(bucket);
  h = await startHarness('all', s3Env(s3));
  admin = await h.createUser({ admin: true });
  owner = await h.createUser();
  repos = await bothRepositories(h, s3, bucket);
  allocations.fs = await grantAllocation(h, admin, { owner_type: 'user', owner_id: owner.id, repository_id: repos.fs.id, limit_bytes: 200 * MiB });
  allocations.s3 = await grantAllocation(h, admin, { owner_type: 'user', owner_id: owner.id, repository_id: repos.s3.id, limit_bytes: 200 * MiB });
});
afterAll(async () => {
  await h?.close();
  await s3?.stop();
});

const repositoryOf = (kind: 'fs' | 's3') => repos[kind].id;

/** What the repository holds at the key: the store of a client of our own, apart from the service. */
async function objectAt(kind: 'fs' | 's3', key: string) {
  if (kind === 's3') return repos.s3.store.inspect(key);
  const { fsBlobStore } = await import('@cairn/platform');
  return fsBlobStore(repos.fs.dir).inspect(key);
}

describe.each(['fs', 's3'] as const)('direct uploads to an %s repository', (kind) => {
  it('takes a multi-part upload in parallel parts, then records it and charges the allocation', async () => {
    const asset = await createAsset(h, owner);
    const bytes = objectOf(12 * MiB);
    const before = await allocationOf(h, owner, allocations[kind].id);
    const started = await startUpload(h, owner, asset.id, { size: bytes.length, repository_id: repositoryOf(kind), sha256: sha(bytes), content_type: 'text/csv' });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const upload = started.body as Upload;
    expect(started.headers['location']).toBe(`/api/assets/${asset.id}/content/uploads/${upload.id}/`);
    expect(upload).toMatchObject({ asset_id: asset.id, key: `assets/${asset.id}/${upload.id}`, size: bytes.length, part_size: 5 * MiB, part_count: 3, status: 'open', missing_parts: [1, 2, 3] });
    expect(upload.part_urls.map((p) => p.size)).toEqual([5 * MiB, 5 * MiB, 2 * MiB]);
    if (kind === 's3') expect(new URL(upload.part_urls[0]?.url ?? '').origin).toBe(s3.endpoint);
    // Reserved at once: what the upload may still become is not free for others.
    expect(await allocationOf(h, owner, allocations[kind].id)).toMatchObject({ used_bytes: before.used_bytes, reserved_bytes: before.reserved_bytes + bytes.length });

    expect(await sendParts(h, upload, bytes)).toEqual(kind === 's3' ? [200, 200, 200] : [204, 204, 204]);
    const done = await completeUpload(h, owner, asset.id, upload.id);
    expect(done.status, JSON.stringify(done.body)).toBe(201);
    const content = done.body as Content;
    expect(content).toMatchObject({ id: upload.id, key: upload.key, repository_id: repositoryOf(kind), size: bytes.length, sha256: sha(bytes), content_type: 'text/csv', origin: 'upload' });
    expect(done.headers['location']).toBe(`/api/assets/${asset.id}/content/${upload.id}/`);
    expect(await objectAt(kind, upload.key)).toEqual({ size: bytes.length, sha256: sha(bytes) });
    expect(await allocationOf(h, owner, allocations[kind].id)).toMatchObject({ used_bytes: before.used_bytes + bytes.length, reserved_bytes: before.reserved_bytes, content_count: before.content_count + 1 });
    expect((await uploadStatus(h, owner, asset.id, upload.id)).body).toMatchObject({ status: 'completed', part_urls: [] });
    // Once: a second completion changes nothing.
    expect((await completeUpload(h, owner, asset.id, upload.id)).body).toMatchObject({ status: 409, code: 'upload_completed' });
    // Its content is deleted as content, not by aborting the upload.
    expect((await abortUpload(h, owner, asset.id, upload.id)).body).toMatchObject({ status: 409, code: 'upload_completed' });
    if (kind === 'fs') expect(await readdir(path.join(repos.fs.dir, '.uploads'))).toEqual([]);
  });

  it('resumes: the status tells which parts arrived and gives fresh URLs for the rest', async () => {
    const asset = await createAsset(h, owner);
    const bytes = objectOf(12 * MiB);
    const upload = (await startUpload(h, owner, asset.id, { size: bytes.length, repository_id: repositoryOf(kind) })).body as Upload;
    await sendParts(h, upload, bytes, [1, 3]);
    const early = await completeUpload(h, owner, asset.id, upload.id);
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ code: 'upload_incomplete' });

    const status = await uploadStatus(h, owner, asset.id, upload.id);
    expect(status.status).toBe(200);
    const resumed = status.body as Upload;
    expect(resumed.received_parts).toEqual([
      { part_number: 1, size: 5 * MiB },
      { part_number: 3, size: 2 * MiB },
    ]);
    expect(resumed.missing_parts).toEqual([2]);
    expect(resumed.part_urls.map((p) => p.part_number)).toEqual([2]);
    expect(Date.parse(resumed.urls_expire_at ?? '')).toBeGreaterThan(Date.now());
    await sendParts(h, resumed, bytes);
    const done = await completeUpload(h, owner, asset.id, upload.id);
    expect(done.status, JSON.stringify(done.body)).toBe(201);
    expect(done.body).toMatchObject({ size: bytes.length, sha256: sha(bytes) });
  });

  it('refuses a part of another length at its URL', async () => {
    const asset = await createAsset(h, owner);
    const bytes = objectOf(7 * MiB);
    const upload = (await startUpload(h, owner, asset.id, { size: bytes.length, repository_id: repositoryOf(kind) })).body as Upload;
    const [first, last] = upload.part_urls;
    const { sendPart } = await import('./direct-upload-fixtures.ts');
    // More than the part (a size lie), and less: the bucket checks the signed length, fs the plan's.
    expect(await sendPart(h, first?.url ?? '', Buffer.concat([partOf(bytes, upload, 1), Buffer.alloc(10)]))).toBe(kind === 's3' ? 403 : 413);
    expect(await sendPart(h, last?.url ?? '', partOf(bytes, upload, 2).subarray(1))).toBe(kind === 's3' ? 403 : 400);
    expect((await uploadStatus(h, owner, asset.id, upload.id)).body).toMatchObject({ received_parts: [], missing_parts: [1, 2] });
  });

  it('refuses an object whose size or checksum is not the declared one: 400, bytes removed, nothing charged', async () => {
    const asset = await createAsset(h, owner);
    const before = await allocationOf(h, owner, allocations[kind].id);
    const bytes = objectOf(12 * MiB);
    // A checksum that does not match what arrives.
    const lying = (await startUpload(h, owner, asset.id, { size: bytes.length, repository_id: repositoryOf(kind), sha256: sha(Buffer.from('other')) })).body as Upload;
    await sendParts(h, lying, bytes);
    const refused = await completeUpload(h, owner, asset.id, lying.id);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ status: 400, code: 'upload_checksum_mismatch' });
    expect(await objectAt(kind, lying.key)).toBeNull();
    expect((await uploadStatus(h, owner, asset.id, lying.id)).body).toMatchObject({ status: 'aborted', end_reason: 'checksum_mismatch' });

    // A part of another length, put at the repository behind the service's back.
    const short = (await startUpload(h, owner, asset.id, { size: bytes.length, repository_id: repositoryOf(kind) })).body as Upload;
    await sendParts(h, short, bytes);
    await replacePartBehindTheService(kind, short, 2, partOf(bytes, short, 2).subarray(0, 1000));
    const wrong = await completeUpload(h, owner, asset.id, short.id);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ status: 400, code: 'upload_size_mismatch' });
    expect(await objectAt(kind, short.key)).toBeNull();
    expect((await uploadStatus(h, owner, asset.id, short.id)).body).toMatchObject({ status: 'aborted', end_reason: 'size_mismatch' });

    expect(await allocationOf(h, owner, allocations[kind].id)).toEqual(expect.objectContaining({ used_bytes: before.used_bytes, reserved_bytes: before.reserved_bytes, content_count: before.content_count }));
    expect((await request(h.queryApp).get(`/api/assets/${asset.id}/content/`).set(bearer(owner))).body).toEqual([]);
  });

  it('aborts: the parts go, the reservation is released, and the URLs take nothing more', async () => {
    const asset = await createAsset(h, owner);
    const before = await allocationOf(h, owner, allocations[kind].id);
    const bytes = objectOf(6 * MiB);
    const upload = (await startUpload(h, owner, asset.id, { size: bytes.length, repository_id: repositoryOf(kind) })).body as Upload;
    await sendParts(h, upload, bytes, [1]);
    expect((await abortUpload(h, owner, asset.id, upload.id)).status).toBe(204);
    expect(await allocationOf(h, owner, allocations[kind].id)).toMatchObject({ reserved_bytes: before.reserved_bytes });
    expect((await uploadStatus(h, owner, asset.id, upload.id)).body).toMatchObject({ status: 'aborted', end_reason: 'aborted', received_parts: [], part_urls: [] });
    const [late] = await sendParts(h, upload, bytes, [2]);
    expect(late).toBe(kind === 's3' ? 404 : 409);
    expect((await completeUpload(h, owner, asset.id, upload.id)).body).toMatchObject({ code: 'upload_ended' });
    // Again: nothing left to do, the same answer.
    expect((await abortUpload(h, owner, asset.id, upload.id)).status).toBe(204);
    if (kind === 'fs') expect(await readdir(path.join(repos.fs.dir, '.uploads'))).not.toContain(upload.id);
  });
});

/** What a client holding the repository's own credentials could do: not something the service's URLs allow. */
async function replacePartBehindTheService(kind: 'fs' | 's3', upload: Upload, partNumber: number, bytes: Buffer): Promise<void> {
  if (kind === 'fs') {
    await writeFile(path.join(repos.fs.dir, '.uploads', upload.id, String(partNumber)), bytes);
    return;
  }
  const client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: s3.credentials });
  const status = (await uploadStatus(h, owner, upload.asset_id, upload.id)).body as Upload;
  expect(status.status).toBe('open');
  // The UploadId is in the presigned URLs the service gave.
  const uploadId = new URL(upload.part_urls[0]?.url ?? '').searchParams.get('uploadId') ?? '';
  await client.send(new UploadPartCommand({ Bucket: bucket, Key: `cairn/${upload.key}`, UploadId: uploadId, PartNumber: partNumber, Body: bytes }));
  client.destroy();
}

describe('a start whose append failed after it committed', () => {
  // The append commits, then fails (a connection lost after COMMIT): the upload is recorded,
  // open, with its reservation. Its parts at the repository must not be removed, or it
  // could take no part and hold its reservation until it expires.
  it.each(['fs', 's3'] as const)('on %s leaves the recorded upload usable', async (kind) => {
    const asset = await createAsset(h, owner);
    const size = 6 * MiB;
    const bytes = objectOf(size);
    const lostApp = createApp({ ...h.resources, eventStore: answerLost(h.resources.eventStore) }, 'command');
    const lost = await request(lostApp).post(`/api/assets/${asset.id}/content/uploads/`).set(bearer(owner)).send({ filename: 'data.bin', part_size: 5 * MiB, size, repository_id: repos[kind].id });
    expect(lost.status).toBe(500);
    const { rows } = await h.resources.pool.query<{ id: string }>('select id from content_uploads where asset_id = $1 and status = $2', [asset.id, 'open']);
    const id = rows[0]?.id;
    if (!id) throw new Error('the upload was recorded');

    const status = await uploadStatus(h, owner, asset.id, id);
    expect(status.status).toBe(200);
    const upload = status.body as Upload;
    expect(await sendParts(h, upload, bytes)).toEqual(upload.part_urls.map(() => (kind === 'fs' ? 204 : 200)));
    const completed = await completeUpload(h, owner, asset.id, id);
    expect(completed.status, JSON.stringify(completed.body)).toBe(201);
    expect(completed.body).toMatchObject({ size, sha256: sha(bytes) });
  });
});

function answerLost(store: EventStore): EventStore {
  return {
    ...store,
    appendToStreams: async (...args: Parameters<EventStore['appendToStreams']>) => {
      await store.appendToStreams(...args);
      throw new Error('injected: the connection was lost after the commit');
    },
  };
}
