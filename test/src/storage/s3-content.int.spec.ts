import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { createRepository } from '@cairn/cli';
import { openBlobStore, type BlobStore } from '@cairn/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../assets/assets-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { startS3Server, type S3TestServer } from '../support/s3-server.ts';
import { eventually, fsRepository, grantAllocation, startJobWorkers, upload, type Allocation, type Content } from './storage-fixtures.ts';

// Content on an s3 repository (s3rver on 127.0.0.1), and a migration fs → s3 whose target is
// down: it fails, is retried once the target is back, and succeeds; with the workers in this
// process (the outbox runner) and on BullMQ against the local Redis.

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const bucket = 'cairn-content';
const jobAttempts = 2;

let h: Harness;
let s3: S3TestServer;
let admin: User;
let owner: User;
let fsRepo: { id: string; dir: string };
let s3RepoId: string;
let s3Store: BlobStore;
let fsAllocation: Allocation;
let s3Allocation: Allocation;

beforeAll(async () => {
  s3 = await startS3Server();
  await s3.createBucket(bucket);
  h = await startHarness('all', {
    CAIRN_JOB_ATTEMPTS: String(jobAttempts),
    CAIRN_JOB_BACKOFF_MS: '50',
    CAIRN_S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
    CAIRN_S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
  });
  admin = await h.createUser({ admin: true });
  owner = await h.createUser();
  fsRepo = await fsRepository(h, 'disk');
  const location = { kind: 's3', endpoint: s3.endpoint, bucket, prefix: '', region: 'us-east-1' } as const;
  s3RepoId = (await createRepository(h.resources, 'bucket', location)).id;
  // A client of its own, to look into the bucket apart from the service.
  s3Store = openBlobStore(location, s3.credentials);
  // The fs allocation comes first: it is the owner's default, so content lands on fs unless told otherwise.
  fsAllocation = await grantAllocation(h, admin, { owner_type: 'user', owner_id: owner.id, repository_id: fsRepo.id, limit_bytes: 1_000_000 });
  s3Allocation = await grantAllocation(h, admin, { owner_type: 'user', owner_id: owner.id, repository_id: s3RepoId, limit_bytes: 1_000_000 });
});
afterAll(async () => {
  await h?.close();
  await s3?.stop();
});

const usedBytes = async (allocation: Allocation) => (await request(h.queryApp).get(`/api/allocations/${allocation.id}/`).set(bearer(owner))).body.used_bytes as number;

describe('content on an s3 repository', () => {
  it('uploads to the bucket, gives a presigned URL that plain fetch downloads, and deletes the object', async () => {
    const asset = await createAsset(h, owner);
    const bytes = randomBytes(70_000);
    const before = await usedBytes(s3Allocation);
    const res = await upload(h, owner, asset.id, bytes, { filename: 'séance report.bin', repositoryId: s3RepoId });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const content = res.body as Content;
    expect(content).toMatchObject({ asset_id: asset.id, repository_id: s3RepoId, allocation_id: s3Allocation.id, size: bytes.length, sha256: sha(bytes), origin: 'upload' });
    expect(await s3Store.inspect(content.key)).toEqual({ size: bytes.length, sha256: sha(bytes) });
    expect(await usedBytes(s3Allocation)).toBe(before + bytes.length);

    const location = await request(h.queryApp).get(`/api/assets/${asset.id}/location/`).set(bearer(owner));
    expect(location.status).toBe(200);
    const [entry] = location.body.content;
    expect(entry).toMatchObject({ content_id: content.id, repository_id: s3RepoId, repository_name: 'bucket', kind: 's3', key: content.key, size: bytes.length });
    const url = new URL(entry.url as string);
    expect(url.origin).toBe(s3.endpoint);
    expect(url.searchParams.get('X-Amz-Signature')).toBeTruthy();
    expect(Date.parse(entry.expires_at as string)).toBeGreaterThan(Date.now());
    const download = await fetch(url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toContain('attachment');
    expect(Buffer.compare(Buffer.from(await download.arrayBuffer()), bytes)).toBe(0);

    const del = await request(h.commandApp).delete(`/api/assets/${asset.id}/content/${content.id}/`).set(bearer(owner));
    expect(del.status).toBe(204);
    expect(await s3Store.inspect(content.key)).toBeNull();
    expect(await usedBytes(s3Allocation)).toBe(before);
    expect((await fetch(url)).status).toBe(404);
  });
});

/**
 * BullMQ's queue is named after the database (workers/src/start-workers.ts), and this file's
 * database is its own, so the machine's Redis is shared safely with every other test file.
 */
const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

const modes = [
  { mode: 'in-process', redis: false },
  { mode: 'bullmq', redis: true },
] as const;

describe('an s3 repository that cannot be reached', () => {
  it('answers 503 storage_unavailable with Retry-After, not a database outage', async () => {
    // A port nothing listens on: every request to the bucket is refused.
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = (await createRepository(h.resources, `unreachable-${randomUUID()}`, { kind: 's3', endpoint: `http://127.0.0.1:${port}`, bucket, prefix: '', region: 'us-east-1' })).id;
    const user = await h.createUser();
    await grantAllocation(h, admin, { owner_type: 'user', owner_id: user.id, repository_id: unreachable, limit_bytes: 1_000_000 });
    const asset = await createAsset(h, user, { title: 'Nowhere to go' });
    const res = await upload(h, user, asset.id, Buffer.from('bytes'), { repositoryId: unreachable });
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body).toMatchObject({ status: 503, code: 'storage_unavailable' });
    expect(res.headers['retry-after']).toBeDefined();
    // The database is fine: the next request is served.
    expect((await request(h.queryApp).get(`/api/assets/${asset.id}/`).set(bearer(user))).status).toBe(200);
  });
});

describe.each(modes)('a migration fs → s3 with the target down, then back ($mode workers)', ({ mode, redis }) => {
  it('fails with the error and the attempts, is retried, and succeeds', async () => {
    const workers = await startJobWorkers(h, redis ? redisUrl : undefined);
    try {
      expect(workers.mode).toBe(mode);
      const asset = await createAsset(h, owner);
      const files = [randomBytes(40_000), Buffer.from('a,b\n1,2\n')];
      const contents: Content[] = [];
      for (const [i, bytes] of files.entries()) {
        const res = await upload(h, owner, asset.id, bytes, { filename: `part-${i}.bin` });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        contents.push(res.body as Content);
      }
      expect(contents.every((c) => c.repository_id === fsRepo.id)).toBe(true);
      const moving = files.reduce((sum, b) => sum + b.length, 0);
      const fsUsed = await usedBytes(fsAllocation);
      const s3Used = await usedBytes(s3Allocation);
      const port = s3.port;

      await s3.stop();
      const start = await request(h.commandApp).post(`/api/assets/${asset.id}/migrations/`).set(bearer(owner)).send({ target_repository_id: s3RepoId });
      expect(start.status, JSON.stringify(start.body)).toBe(201);
      const migrationId = start.body.id as string;
      expect(start.body).toMatchObject({ status: 'pending', source_repository_id: fsRepo.id, target_repository_id: s3RepoId });

      const migrationNow = async () => {
        const res = await request(h.queryApp).get(`/api/assets/${asset.id}/migrations/`).set(bearer(owner));
        expect(res.status).toBe(200);
        return (res.body as { id: string; status: string; attempts: number; error: string | null; moved_content: number | null }[]).find((m) => m.id === migrationId);
      };
      const failed = await eventually(async () => {
        const m = await migrationNow();
        return m?.status === 'failed' ? m : null;
      }, 40_000);
      expect(failed.attempts).toBe(jobAttempts);
      expect(failed.error).toMatch(/ECONNREFUSED/);
      const failedAsset = await request(h.queryApp).get(`/api/assets/${asset.id}/`).set(bearer(owner));
      expect(failedAsset.body.is_migrating).toBe(true);
      // Nothing moved: every record on fs, its bytes there, the charges where they were.
      for (const [i, c] of contents.entries()) {
        const row = await request(h.queryApp).get(`/api/assets/${asset.id}/content/${c.id}/`).set(bearer(owner));
        expect(row.body).toMatchObject({ repository_id: fsRepo.id, sha256: sha(files[i] as Buffer) });
      }
      expect((await readdir(path.join(fsRepo.dir, 'assets', asset.id))).sort()).toEqual(contents.map((c) => c.id).sort());
      expect(await usedBytes(fsAllocation)).toBe(fsUsed);
      expect(await usedBytes(s3Allocation)).toBe(s3Used);

      // The target is back (an empty server where the old one was): retry.
      s3 = await startS3Server({ port });
      await s3.createBucket(bucket);
      const retry = await request(h.commandApp).post(`/api/assets/${asset.id}/migrations/${migrationId}/retry/`).set(bearer(owner));
      expect(retry.status, JSON.stringify(retry.body)).toBe(200);
      expect(retry.body).toMatchObject({ id: migrationId, status: 'pending' });

      const done = await eventually(async () => {
        const m = await migrationNow();
        return m?.status === 'succeeded' ? m : null;
      }, 40_000);
      expect(done).toMatchObject({ attempts: jobAttempts + 1, moved_content: contents.length });
      for (const [i, c] of contents.entries()) {
        const bytes = files[i] as Buffer;
        const row = await request(h.queryApp).get(`/api/assets/${asset.id}/content/${c.id}/`).set(bearer(owner));
        expect(row.body).toMatchObject({ repository_id: s3RepoId, allocation_id: s3Allocation.id, key: c.key, sha256: sha(bytes), size: bytes.length });
        expect(await s3Store.inspect(c.key)).toEqual({ size: bytes.length, sha256: sha(bytes) });
      }
      expect(await readdir(path.join(fsRepo.dir, 'assets', asset.id))).toEqual([]);
      expect(await usedBytes(fsAllocation)).toBe(fsUsed - moving);
      expect(await usedBytes(s3Allocation)).toBe(s3Used + moving);
      const after = await request(h.queryApp).get(`/api/assets/${asset.id}/`).set(bearer(owner));
      expect(after.body.is_migrating).toBe(false);

      const again = await request(h.commandApp).post(`/api/assets/${asset.id}/migrations/${migrationId}/retry/`).set(bearer(owner));
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('migration_not_failed');
    } finally {
      await workers.stop();
    }
  });
});
