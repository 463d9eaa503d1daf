import { randomBytes } from 'node:crypto';
import { mkdir, readdir, truncate, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createRepository } from '@cairn/cli';
import { signDownload } from '@cairn/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../assets/assets-fixtures.ts';
import type { User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { startS3Server, type S3TestServer } from '../support/s3-server.ts';
import { fsRepository, grantAllocation, upload, type Content } from '../storage/storage-fixtures.ts';
import { closedWithin, faultyS3Proxy, firstBytes, inBatches, listen, openDescriptors, rawRequest, settledDescriptors } from './stream-hygiene-fixtures.ts';

// Issue 23 finding 2: every streamed answer and upload ends its file, store stream and socket
// on client abort, on error and on timeout. The server runs in this process, so the
// process's open descriptors (/proc/self/fd) show what it left open.

const MiB = 1024 * 1024;
const idleTimeoutMs = 700;
/** Pool connections and timers may come and go; a leak is one descriptor per request, hundreds here. */
const slack = 12;

let h: Harness;
let s3: S3TestServer;
let proxy: Awaited<ReturnType<typeof faultyS3Proxy>>;
let server: Awaited<ReturnType<typeof listen>>;
let owner: User;
let repo: { id: string; dir: string };
let big: Content;
let s3Content: Content;

const downloadPath = (content: Content) => {
  const expires = Math.floor(Date.now() / 1000) + 600;
  const signature = signDownload(h.resources.downloadKey, content.asset_id, content.id, expires);
  return `/api/assets/${content.asset_id}/content/${content.id}/download/?expires=${expires}&signature=${signature}`;
};
const get = (content: Content, method = 'GET') => rawRequest(server.port, `${method} ${downloadPath(content)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);

async function uploaded(bytes: Buffer, options: { filename?: string; repositoryId?: string } = {}): Promise<Content> {
  const asset = await createAsset(h, owner);
  const res = await upload(h, owner, asset.id, bytes, options);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Content;
}

beforeAll(async () => {
  s3 = await startS3Server();
  await s3.createBucket('hygiene');
  proxy = await faultyS3Proxy(s3.port);
  h = await startHarness('all', { CAIRN_S3_ACCESS_KEY_ID: s3.credentials.accessKeyId, CAIRN_S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey, CAIRN_STREAM_IDLE_TIMEOUT_MS: String(idleTimeoutMs),
    // Over a thousand download links from one address in a minute: past the anonymous budget, which is not what is tested here.
    CAIRN_ANONYMOUS_REQUESTS_PER_MINUTE: '100000',
  });
  const admin = await h.createUser({ admin: true });
  owner = await h.createUser();
  repo = await fsRepository(h, 'hygiene');
  const s3Repo = await createRepository(h.resources, 'hygiene-s3', { kind: 's3', endpoint: proxy.endpoint, bucket: 'hygiene', prefix: '', region: 'us-east-1' });
  await grantAllocation(h, admin, { owner_type: 'user', owner_id: owner.id, repository_id: repo.id, limit_bytes: 1024 * MiB });
  await grantAllocation(h, admin, { owner_type: 'user', owner_id: owner.id, repository_id: s3Repo.id, limit_bytes: 1024 * MiB });
  server = await listen(h.queryApp);
  // Larger than the sockets' buffers, so an abandoned download is one the server is still sending.
  big = await uploaded(randomBytes(8 * MiB), { repositoryId: repo.id });
  s3Content = await uploaded(randomBytes(2 * MiB), { repositoryId: s3Repo.id });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await h?.close();
  await proxy?.close();
  await s3?.stop();
});

/** The descriptor count after a warm-up (pools, lazily opened files), to come back to. */
async function baseline(): Promise<number> {
  await inBatches(12, 12, async () => {
    const socket = await get(big, 'HEAD');
    await firstBytes(socket);
    socket.destroy();
  });
  await new Promise((resolve) => setTimeout(resolve, 200));
  return openDescriptors();
}

describe('downloads', () => {
  it('close their file when the client goes away after the headers', async () => {
    const before = await baseline();
    await inBatches(300, 30, async () => {
      const socket = await get(big);
      expect(await firstBytes(socket)).toMatch(/^HTTP\/1\.1 200/);
      socket.destroy();
    });
    expect(await settledDescriptors(before, slack)).toBeLessThanOrEqual(before + slack);
  }, 60_000);

  it('close their file when the client goes away before the answer starts', async () => {
    const before = await baseline();
    await inBatches(300, 30, async (i) => {
      const socket = await get(big, i % 2 === 0 ? 'GET' : 'HEAD');
      // Gone while the server is still looking the record up, or just opening the file.
      await new Promise((resolve) => setTimeout(resolve, i % 7));
      socket.destroy();
    });
    expect(await settledDescriptors(before, slack)).toBeLessThanOrEqual(before + slack);
  }, 60_000);

  it('are cut, and close their file, when the file is shorter than its record', async () => {
    const short = await uploaded(randomBytes(256 * 1024), { repositoryId: repo.id });
    await truncate(path.join(repo.dir, ...short.key.split('/')), 1000);
    const before = await baseline();
    await inBatches(100, 25, async () => {
      const socket = await get(short);
      socket.resume();
      // Old code: the answer "ends" 1000 bytes into a 262,144-byte Content-Length and the
      // connection is kept alive; the client waits for bytes that never come.
      expect(await closedWithin(socket, 3000)).toBe(true);
      socket.destroy();
    });
    expect(await settledDescriptors(before, slack)).toBeLessThanOrEqual(before + slack);
  }, 60_000);

  it('end their store stream and the connection when the store fails mid-stream (s3)', async () => {
    const before = await baseline();
    proxy.failing = true;
    try {
      await inBatches(100, 25, async () => {
        const socket = await get(s3Content);
        const first = firstBytes(socket);
        socket.resume();
        expect(await closedWithin(socket, 5000)).toBe(true);
        // The answer had begun: the store failed mid-stream, not before.
        expect(await first).toMatch(/^HTTP\/1\.1 200/);
      });
    } finally {
      proxy.failing = false;
    }
    expect(await settledDescriptors(before, slack)).toBeLessThanOrEqual(before + slack);
  }, 60_000);

  it('are ended when the client stops reading for longer than the idle timeout', async () => {
    const before = await baseline();
    const sockets = await Promise.all(Array.from({ length: 20 }, () => get(big)));
    await Promise.all(sockets.map(firstBytes));
    for (const socket of sockets) socket.pause();
    // Long enough for the server to fill twenty sockets' buffers and then find each idle, on a
    // machine shared with the rest of the suite (three idle timeouts were not, once, on 2 cores).
    await new Promise((resolve) => setTimeout(resolve, idleTimeoutMs * 8));
    const received = sockets.map(() => 0);
    sockets.forEach((socket, i) => socket.on('data', (d: Buffer) => (received[i] = (received[i] ?? 0) + d.length)).resume());
    const closed = await Promise.all(sockets.map((socket) => closedWithin(socket, 15_000)));
    expect(closed.every(Boolean)).toBe(true);
    expect(received.every((n) => n < big.size)).toBe(true);
    expect(await settledDescriptors(before, slack)).toBeLessThanOrEqual(before + slack);
  }, 60_000);
});

describe('uploads', () => {
  const boundary = 'hygiene-boundary-7c1d';
  const head = (assetId: string, length: number) =>
    `POST /api/assets/${assetId}/content/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${owner.token}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${length}\r\n\r\n`;
  const partHead = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);

  it('abandoned mid-way close their partial file and remove it', async () => {
    const upServer = await listen(h.commandApp);
    try {
      const asset = await createAsset(h, owner);
      const before = await baseline();
      await inBatches(150, 30, async () => {
        const socket = await rawRequest(upServer.port, head(asset.id, 4 * MiB), Buffer.concat([partHead, randomBytes(256 * 1024)]));
        await new Promise((resolve) => setTimeout(resolve, 30));
        socket.destroy();
      });
      expect(await settledDescriptors(before, slack)).toBeLessThanOrEqual(before + slack);
      await expect.poll(async () => readdir(path.join(repo.dir, '.partial')).catch(() => []), { timeout: 5000 }).toEqual([]);
    } finally {
      await upServer.close();
    }
  }, 60_000);

  it('stalled mid-way are cut after the idle timeout, closing and removing their partial file', async () => {
    const upServer = await listen(h.commandApp);
    try {
      const asset = await createAsset(h, owner);
      const before = await baseline();
      const sockets = await Promise.all(Array.from({ length: 30 }, () => rawRequest(upServer.port, head(asset.id, 4 * MiB), Buffer.concat([partHead, randomBytes(64 * 1024)]))));
      // Nothing more is sent: the service must not hold the partial files open for good.
      const closed = await Promise.all(sockets.map((socket) => closedWithin(socket, idleTimeoutMs * 6)));
      expect(closed.every(Boolean)).toBe(true);
      expect(await settledDescriptors(before, slack)).toBeLessThanOrEqual(before + slack);
      await expect.poll(async () => readdir(path.join(repo.dir, '.partial')).catch(() => []), { timeout: 5000 }).toEqual([]);
    } finally {
      await upServer.close();
    }
  }, 60_000);

  it('refused mid-way (past the allocation) close and remove their partial file', async () => {
    const admin = await h.createUser({ admin: true });
    const poor = await h.createUser();
    await grantAllocation(h, admin, { owner_type: 'user', owner_id: poor.id, repository_id: repo.id, limit_bytes: 64 * 1024 });
    const asset = await createAsset(h, poor);
    const before = await baseline();
    await inBatches(100, 20, async () => {
      const res = await upload(h, poor, asset.id, randomBytes(256 * 1024), { repositoryId: repo.id });
      expect(res.status).toBe(409);
    });
    expect(await settledDescriptors(before, slack)).toBeLessThanOrEqual(before + slack);
    expect(await readdir(path.join(repo.dir, '.partial')).catch(() => [])).toEqual([]);
  }, 60_000);

  it('of a killed process leave .partial files that the next writes sweep once they are an hour old', async () => {
    const admin = await h.createUser({ admin: true });
    const fresh = await fsRepository(h, 'sweep');
    await grantAllocation(h, admin, { owner_type: 'user', owner_id: owner.id, repository_id: fresh.id, limit_bytes: MiB });
    const partials = path.join(fresh.dir, '.partial');
    await mkdir(partials, { recursive: true });
    await writeFile(path.join(partials, 'killed'), randomBytes(1000));
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    await utimes(path.join(partials, 'killed'), twoHoursAgo, twoHoursAgo);
    // Another process's upload, still being written: not touched.
    await writeFile(path.join(partials, 'running'), randomBytes(1000));
    await uploaded(randomBytes(100), { repositoryId: fresh.id });
    await expect.poll(async () => readdir(partials), { timeout: 5000 }).toEqual(['running']);
  });
});
