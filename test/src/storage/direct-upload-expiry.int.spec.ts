import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { findUpload } from '@cairn/projections';
import type { Workers } from '@cairn/workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../assets/assets-fixtures.ts';
import request from 'supertest';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { startS3Server, type S3TestServer } from '../support/s3-server.ts';
import { allocationOf, bothRepositories, completeUpload, MiB, objectOf, s3Env, sendParts, startUpload, uploadStatus, type Repositories, type Upload } from './direct-upload-fixtures.ts';
import { eventually, grantAllocation, startJobWorkers, type Allocation } from './storage-fixtures.ts';

// Issue 25: an abandoned upload expires (here after 3 s) and the expire-upload job, due at
// that moment through the outbox, cleans it: the parts at the repository, the reservation.
// With the workers in this process (the outbox runner) and on BullMQ against the local Redis.

const expirySeconds = 3;
const bucket = 'cairn-direct-expiry';
const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
let h: Harness;
let s3: S3TestServer;
let owner: User;
let repos: Repositories;
const allocations = {} as Record<'fs' | 's3', Allocation>;

beforeAll(async () => {
  s3 = await startS3Server();
  await s3.createBucket(bucket);
  h = await startHarness('all', { ...s3Env(s3), CAIRN_UPLOAD_EXPIRY_SECONDS: String(expirySeconds), CAIRN_JOB_BACKOFF_MS: '50' });
  const admin = await h.createUser({ admin: true });
  owner = await h.createUser();
  repos = await bothRepositories(h, s3, bucket);
  for (const kind of ['fs', 's3'] as const) allocations[kind] = await grantAllocation(h, admin, { owner_type: 'user', owner_id: owner.id, repository_id: repos[kind].id, limit_bytes: 100 * MiB });
});
afterAll(async () => {
  await h?.close();
  await s3?.stop();
});

/** Whether the repository still holds the upload's parts (fs: its directory; s3: ListParts answers). */
async function partsAtRepository(kind: 'fs' | 's3', upload: Upload, uploadIdAtS3: string): Promise<boolean> {
  if (kind === 'fs') return (await readdir(path.join(repos.fs.dir, '.uploads'))).includes(upload.id);
  const res = await fetch(`${s3.endpoint}/${bucket}/cairn/${upload.key}?uploadId=${uploadIdAtS3}`);
  await res.arrayBuffer();
  return res.status === 200;
}

describe.each([
  { mode: 'in-process', redis: undefined },
  { mode: 'bullmq', redis: redisUrl },
])('expiry with $mode workers', ({ redis }) => {
  let workers: Workers;
  beforeAll(async () => {
    workers = await startJobWorkers(h, redis);
  });
  afterAll(async () => {
    await workers?.stop();
  });

  it.each(['fs', 's3'] as const)('cleans an abandoned upload to %s at its expiry', async (kind) => {
    const asset = await createAsset(h, owner);
    const bytes = objectOf(12 * MiB);
    const before = await allocationOf(h, owner, allocations[kind].id);
    const started = await startUpload(h, owner, asset.id, { size: bytes.length, repository_id: repos[kind].id });
    expect(started.status).toBe(201);
    const upload = started.body as Upload;
    const s3UploadId = kind === 's3' ? (new URL(upload.part_urls[0]?.url ?? '').searchParams.get('uploadId') ?? '') : '';
    expect(Date.parse(upload.expires_at) - Date.now()).toBeLessThanOrEqual(expirySeconds * 1000);
    await sendParts(h, upload, bytes, [1]);
    // Open until it expires: the job is due then, not before.
    expect((await uploadStatus(h, owner, asset.id, upload.id)).body).toMatchObject({ status: 'open', received_parts: [{ part_number: 1 }] });
    expect(await partsAtRepository(kind, upload, s3UploadId)).toBe(true);

    const ended = await eventually(async () => {
      const res = await uploadStatus(h, owner, asset.id, upload.id);
      return res.body.status === 'aborted' ? (res.body as Upload) : undefined;
    }, 30_000);
    expect(ended).toMatchObject({ end_reason: 'expired', part_urls: [], received_parts: [] });
    expect(await partsAtRepository(kind, upload, s3UploadId)).toBe(false);
    expect(await allocationOf(h, owner, allocations[kind].id)).toMatchObject({ used_bytes: before.used_bytes, reserved_bytes: before.reserved_bytes });
    // The URLs the client still holds are refused, and so is a late completion. At S3 a URL
    // signed to the upload's expiry, rounded up to the second, may outlive the abort by part
    // of a second: its multipart upload is then gone (404) rather than its signature (403).
    const [late] = await sendParts(h, upload, bytes, [2]);
    expect(kind === 's3' ? [403, 404] : [404]).toContain(late);
    expect((await completeUpload(h, owner, asset.id, upload.id)).body).toMatchObject({ status: 409, code: 'upload_ended' });
  });
});

describe('a deleted asset', () => {
  it('has its open uploads aborted by the purge job: parts removed, reservations released', async () => {
    const workers = await startJobWorkers(h);
    try {
      const asset = await createAsset(h, owner);
      const before = await allocationOf(h, owner, allocations.fs.id);
      const bytes = objectOf(6 * MiB);
      const upload = (await startUpload(h, owner, asset.id, { size: bytes.length, repository_id: repos.fs.id, part_size: 5 * MiB })).body as Upload;
      await sendParts(h, upload, bytes, [1]);
      expect((await request(h.commandApp).delete(`/api/assets/${asset.id}/`).set(bearer(owner))).status).toBe(204);
      await eventually(async () => (await allocationOf(h, owner, allocations.fs.id)).reserved_bytes === before.reserved_bytes, 20_000);
      expect(await partsAtRepository('fs', upload, '')).toBe(false);
      // The purge ended it, before its expiry would have.
      expect(await findUpload(h.resources.db, asset.id, upload.id)).toMatchObject({ status: 'aborted', end_reason: 'aborted' });
    } finally {
      await workers.stop();
    }
  });
});

describe('an upload past its expiry that the job has not cleaned yet', () => {
  it('cannot be completed', async () => {
    // No workers here: the upload stays open in the read model after it expired.
    const asset = await createAsset(h, owner);
    const bytes = objectOf(6 * MiB);
    const upload = (await startUpload(h, owner, asset.id, { size: bytes.length, repository_id: repos.fs.id })).body as Upload;
    await sendParts(h, upload, bytes);
    await new Promise((resolve) => setTimeout(resolve, Date.parse(upload.expires_at) - Date.now() + 100));
    const res = await completeUpload(h, owner, asset.id, upload.id);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'upload_expired' });
    expect((await uploadStatus(h, owner, asset.id, upload.id)).body).toMatchObject({ status: 'open', part_urls: [] });
  });
});
