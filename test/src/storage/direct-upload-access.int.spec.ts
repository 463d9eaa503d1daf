import { readdir } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { signPart, uploadLinkKey } from '@cairn/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset, setPermissions } from '../assets/assets-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { publicUrl, startHarness, type Harness } from '../support/harness.ts';
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
  sendPart,
  startUpload,
  uploadStatus,
  type Repositories,
  type Upload,
} from './direct-upload-fixtures.ts';
import { eventually, grantAllocation, upload as serviceUpload } from './storage-fixtures.ts';

// Issue 25, as a hostile client would try it: forged, altered, replayed and expired part
// URLs; keys and uploads of other assets; callers without WRITE_CONTENT; a locked asset;
// and many uploads at once against one allocation.

const READ_METADATA = 1;
const READ_CONTENT = 4;
const WRITE_CONTENT = 8;
const bucket = 'cairn-direct-access';
let h: Harness;
let s3: S3TestServer;
let admin: User;
let owner: User;
let repos: Repositories;

beforeAll(async () => {
  s3 = await startS3Server();
  await s3.createBucket(bucket);
  h = await startHarness('all', s3Env(s3));
  admin = await h.createUser({ admin: true });
  owner = await h.createUser();
  repos = await bothRepositories(h, s3, bucket);
  await grantAllocation(h, admin, { owner_type: 'user', owner_id: owner.id, repository_id: repos.fs.id, limit_bytes: 100 * MiB });
  await grantAllocation(h, admin, { owner_type: 'user', owner_id: owner.id, repository_id: repos.s3.id, limit_bytes: 100 * MiB });
});
afterAll(async () => {
  await h?.close();
  await s3?.stop();
});

async function openUpload(kind: 'fs' | 's3', size = 6 * MiB): Promise<{ upload: Upload; bytes: Buffer }> {
  const asset = await createAsset(h, owner);
  const bytes = objectOf(size);
  const res = await startUpload(h, owner, asset.id, { size, repository_id: repos[kind].id });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { upload: res.body as Upload, bytes };
}

const withParam = (url: string, name: string, value: string) => {
  const u = new URL(url);
  u.searchParams.set(name, value);
  return u.toString();
};

describe('fs part URLs', () => {
  it('refuse a forged, altered, moved or expired signature with 404, before reading anything', async () => {
    const { upload, bytes } = await openUpload('fs');
    const [first, second] = upload.part_urls;
    const url = first?.url ?? '';
    const part = partOf(bytes, upload, 1);
    const signature = new URL(url).searchParams.get('signature') ?? '';
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    const other = await openUpload('fs');
    const refusals = [
      withParam(url, 'signature', flipped),
      withParam(url, 'signature', ''),
      // The signature of part 1 on part 2, on a later expiry, on another upload and another asset.
      withParam(url, 'part', '2'),
      withParam(url, 'expires', String(Number(new URL(url).searchParams.get('expires')) + 3600)),
      url.replace(upload.id, other.upload.id),
      url.replace(upload.asset_id, other.upload.asset_id),
    ];
    for (const forged of refusals) {
      const status = await sendPart(h, forged, part);
      expect(status, forged).toBe(404);
    }
    // Signed with the right key but past its expiry: a replay after the URL's time is over.
    const key = uploadLinkKey(h.resources.downloadKey);
    const past = Math.floor(Date.now() / 1000) - 1;
    const expired = `${publicUrl}/api/assets/${upload.asset_id}/content/uploads/${upload.id}/parts/?part=1&expires=${past}&signature=${signPart(key, { assetId: upload.asset_id, uploadId: upload.id, partNumber: 1, expiresAt: past })}`;
    expect(await sendPart(h, expired, part)).toBe(404);
    // A part past the plan, even signed: not found.
    const far = Math.floor(Date.now() / 1000) + 600;
    const beyond = `${publicUrl}/api/assets/${upload.asset_id}/content/uploads/${upload.id}/parts/?part=3&expires=${far}&signature=${signPart(key, { assetId: upload.asset_id, uploadId: upload.id, partNumber: 3, expiresAt: far })}`;
    expect(await sendPart(h, beyond, Buffer.alloc(10))).toBe(404);
    expect((await uploadStatus(h, owner, upload.asset_id, upload.id)).body).toMatchObject({ received_parts: [] });
    // The genuine URLs work, and a replay of one replaces its part, never adds bytes.
    expect(await sendPart(h, url, part)).toBe(204);
    expect(await sendPart(h, url, part)).toBe(204);
    expect(await sendPart(h, second?.url ?? '', partOf(bytes, upload, 2))).toBe(204);
    expect((await uploadStatus(h, owner, upload.asset_id, upload.id)).body).toMatchObject({ missing_parts: [] });
  });

  it('take no bearer token in place of a signature, and answer a download link’s signature with 404', async () => {
    const { upload, bytes } = await openUpload('fs');
    const path = `/api/assets/${upload.asset_id}/content/uploads/${upload.id}/parts/?part=1`;
    const res = await request(h.commandApp).put(path).set(bearer(owner)).set('Content-Type', 'application/octet-stream').send(partOf(bytes, upload, 1));
    expect(res.status).toBe(400);
    const forged = await request(h.commandApp).put(`${path}&expires=99999999999&signature=x`).set('Content-Type', 'application/octet-stream').send(partOf(bytes, upload, 1));
    expect(forged.status).toBe(404);
    expect(forged.body).toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('fs parts abandoned mid-body', () => {
  it('leave no temporary file and no part: the stream’s owner removes what it wrote', async () => {
    const { upload } = await openUpload('fs');
    const server = createServer(h.commandApp);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const url = new URL(upload.part_urls[0]?.url ?? '');
      await Promise.all(
        Array.from({ length: 5 }, async () => {
          const req = httpRequest({ host: '127.0.0.1', port, method: 'PUT', path: `${url.pathname}${url.search}`, headers: { 'content-length': String(5 * MiB) } });
          req.on('error', () => undefined);
          req.write(Buffer.alloc(1 * MiB));
          await new Promise((resolve) => setTimeout(resolve, 200));
          req.destroy();
        }),
      );
      const dir = path.join(repos.fs.dir, '.uploads', upload.id);
      await eventually(async () => (await readdir(dir)).length === 0, 10_000);
      expect((await uploadStatus(h, owner, upload.asset_id, upload.id)).body).toMatchObject({ received_parts: [], missing_parts: [1, 2] });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('s3 part URLs', () => {
  it('refuse an altered signature, another part, an expired URL and another length (at the bucket)', async () => {
    const { upload, bytes } = await openUpload('s3');
    const url = upload.part_urls[0]?.url ?? '';
    const part = partOf(bytes, upload, 1);
    const signature = new URL(url).searchParams.get('X-Amz-Signature') ?? '';
    expect(await sendPart(h, withParam(url, 'X-Amz-Signature', `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`), part)).toBe(403);
    expect(await sendPart(h, withParam(url, 'partNumber', '2'), part)).toBe(403);
    expect(await sendPart(h, withParam(url, 'X-Amz-Expires', '86400'), part)).toBe(403);
    expect(await sendPart(h, url, Buffer.concat([part, Buffer.alloc(1)]))).toBe(403);
    const signedAt = new URL(url).searchParams.get('X-Amz-Date') ?? '';
    expect(signedAt).toMatch(/^\d{8}T\d{6}Z$/);
    expect((await uploadStatus(h, owner, upload.asset_id, upload.id)).body).toMatchObject({ received_parts: [] });
    expect(await sendPart(h, url, part)).toBe(200);
  });
});

describe('keys and uploads of other assets', () => {
  it('an upload is found only under its own asset, and its key is under that asset’s prefix', async () => {
    const { upload } = await openUpload('fs');
    expect(upload.key.startsWith(`assets/${upload.asset_id}/`)).toBe(true);
    const mine = await createAsset(h, owner);
    expect((await uploadStatus(h, owner, mine.id, upload.id)).status).toBe(404);
    expect((await completeUpload(h, owner, mine.id, upload.id)).status).toBe(404);
    expect((await abortUpload(h, owner, mine.id, upload.id)).status).toBe(404);
    expect((await uploadStatus(h, owner, upload.asset_id, upload.asset_id)).status).toBe(404);
  });

  it('a WRITE_CONTENT holder records no key outside the asset’s prefix, nor traverses out of it', async () => {
    const asset = await createAsset(h, owner);
    const other = await createAsset(h, owner);
    const record = (key: string) => request(h.commandApp).post(`/api/assets/${asset.id}/content/`).set(bearer(owner)).send({ key, repository_id: repos.fs.id });
    expect((await record(`assets/${other.id}/x`)).status).toBe(403);
    expect((await record('.uploads/x/1')).status).toBe(403);
    expect((await record(`assets/${asset.id}/../${other.id}/x`)).status).toBe(400);
    // A file name is a name, never a path.
    const traversal = await startUpload(h, owner, asset.id, { size: 10, filename: '../../etc/passwd', repository_id: repos.fs.id });
    expect(traversal.status).toBe(400);
    expect(traversal.body).toMatchObject({ code: 'validation_error', errors: { filename: expect.any(Array) } });
  });
});

describe('who may upload', () => {
  it('needs WRITE_CONTENT (a reader gets 403, a stranger 404) and an unlocked asset (423)', async () => {
    const asset = await createAsset(h, owner);
    const reader = await h.createUser();
    const writer = await h.createUser();
    const stranger = await h.createUser();
    await setPermissions(h, owner, asset.id, [
      { subject_type: 'user', subject_id: reader.id, flags: READ_METADATA | READ_CONTENT },
      { subject_type: 'user', subject_id: writer.id, flags: READ_METADATA | WRITE_CONTENT },
    ]);
    const body = { size: 6 * MiB, repository_id: repos.fs.id };
    expect((await startUpload(h, reader, asset.id, body)).status).toBe(403);
    expect((await startUpload(h, stranger, asset.id, body)).status).toBe(404);
    const started = await startUpload(h, writer, asset.id, body);
    expect(started.status).toBe(201);
    const upload = started.body as Upload;
    // The owner pays, not the writer: the owner's allocation holds the reservation.
    expect(upload.allocation_id).toBeDefined();
    expect((await uploadStatus(h, reader, asset.id, upload.id)).status).toBe(403);
    expect((await uploadStatus(h, stranger, asset.id, upload.id)).status).toBe(404);
    expect((await abortUpload(h, reader, asset.id, upload.id)).status).toBe(403);
    expect((await completeUpload(h, reader, asset.id, upload.id)).status).toBe(403);

    const lock = await request(h.commandApp).post(`/api/assets/${asset.id}/lock/`).set(bearer(owner)).send({ locked: true, reason: 'frozen' });
    expect(lock.status).toBe(200);
    expect((await startUpload(h, writer, asset.id, body)).status).toBe(423);
    expect((await completeUpload(h, writer, asset.id, upload.id)).status).toBe(423);
    // Giving back what an upload holds changes no content: allowed while locked.
    expect((await abortUpload(h, writer, asset.id, upload.id)).status).toBe(204);
  });

  it('refuses bad declarations with 400 naming the field', async () => {
    const asset = await createAsset(h, owner);
    const cases: [Record<string, unknown>, string][] = [
      [{ size: 0 }, 'size'],
      [{ size: 10, part_size: 1024 }, 'part_size'],
      [{ size: 10, sha256: 'nothex' }, 'sha256'],
      [{ size: 10, content_type: 'not a type' }, 'content_type'],
      [{ size: 6 * 1024 ** 4 }, 'size'],
    ];
    for (const [body, field] of cases) {
      const res = await startUpload(h, owner, asset.id, { repository_id: repos.fs.id, ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body.errors ?? {})).toContain(field);
    }
  });
});

describe('quota under concurrency', () => {
  it.each(['fs', 's3'] as const)('many uploads started at once on %s never reserve past the limit', async (kind) => {
    const user = await h.createUser();
    const allocation = await grantAllocation(h, admin, { owner_type: 'user', owner_id: user.id, repository_id: repos[kind].id, limit_bytes: 30 * MiB });
    const asset = await createAsset(h, user);
    const starts = await Promise.all(Array.from({ length: 8 }, () => startUpload(h, user, asset.id, { size: 12 * MiB, repository_id: repos[kind].id })));
    const statuses = starts.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 409, 409, 409, 409, 409, 409]);
    for (const refused of starts.filter((r) => r.status === 409)) expect(refused.body).toMatchObject({ code: 'allocation_exceeded' });
    expect(await allocationOf(h, user, allocation.id)).toMatchObject({ used_bytes: 0, reserved_bytes: 24 * MiB });
    // An upload through the service counts the reservations too: 6 MiB are left, 7 are refused.
    const through = await serviceUpload(h, user, asset.id, objectOf(7 * MiB), { repositoryId: repos[kind].id });
    expect(through.status).toBe(409);
    expect(through.body).toMatchObject({ code: 'allocation_exceeded' });
    // An allocation that holds reservations is in use.
    expect((await request(h.commandApp).delete(`/api/allocations/${allocation.id}/`).set(bearer(admin))).status).toBe(409);

    // Completing one turns its reservation into the charge; aborting the other gives it back.
    const [first, second] = starts.filter((r) => r.status === 201).map((r) => r.body as Upload);
    if (!first || !second) throw new Error('two uploads started');
    const bytes = objectOf(12 * MiB);
    await Promise.all(first.part_urls.map((p) => sendPart(h, p.url, partOf(bytes, first, p.part_number))));
    const [completed, aborted] = await Promise.all([completeUpload(h, user, asset.id, first.id), abortUpload(h, user, asset.id, second.id)]);
    expect(completed.status, JSON.stringify(completed.body)).toBe(201);
    expect(aborted.status).toBe(204);
    expect(await allocationOf(h, user, allocation.id)).toMatchObject({ used_bytes: 12 * MiB, reserved_bytes: 0, content_count: 1 });
  });
});
