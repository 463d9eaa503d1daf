import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { createRepository } from '@cairn/cli';
import { openBlobStore, type BlobStore } from '@cairn/platform';
import { PDFDocument } from 'pdf-lib';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset, setPermissions } from '../assets/assets-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { publicUrl, startHarness, type Harness } from '../support/harness.ts';
import { startCairn, type ServerProcess } from '../support/processes.ts';
import { startS3Server, type S3TestServer } from '../support/s3-server.ts';
import { eventually, fsRepository, grantAllocation, startJobWorkers, upload, type Allocation, type Content } from './storage-fixtures.ts';

// What goes wrong with content: a client gone mid-upload, an upload past the upload limit,
// extraction switched off, corrupt files, and a migration worker killed mid-copy.

const MiB = 1024 * 1024;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const uploadLimit = 4096;

/** Extraction on, the default limits. */
let h: Harness;
/** CAIRN_UPLOAD_LIMIT_BYTES small and CAIRN_METADATA_EXTRACTION=disabled. */
let small: Harness;
let s3: S3TestServer;
let admin: User;
let owner: User;
let repo: { id: string; dir: string };
let allocation: Allocation;

beforeAll(async () => {
  s3 = await startS3Server();
  const s3Credentials = { CAIRN_S3_ACCESS_KEY_ID: s3.credentials.accessKeyId, CAIRN_S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey };
  [h, small] = await Promise.all([startHarness('all', s3Credentials), startHarness('all', { CAIRN_UPLOAD_LIMIT_BYTES: String(uploadLimit), CAIRN_METADATA_EXTRACTION: 'disabled' })]);
  admin = await h.createUser({ admin: true });
  owner = await h.createUser();
  repo = await fsRepository(h, 'primary');
  allocation = await grantAllocation(h, admin, { owner_type: 'user', owner_id: owner.id, repository_id: repo.id, limit_bytes: 200 * MiB });
});
afterAll(async () => {
  await Promise.all([h?.close(), small?.close()]);
  await s3?.stop();
});

const usedBytes = async (harness: Harness, caller: User, id: string) => (await request(harness.queryApp).get(`/api/allocations/${id}/`).set(bearer(caller))).body.used_bytes as number;
const listContent = async (harness: Harness, caller: User, assetId: string) => (await request(harness.queryApp).get(`/api/assets/${assetId}/content/`).set(bearer(caller))).body as Content[];
/** Files under the repository's directory: the asset's objects and the fs store's `.partial/` writes. */
const filesIn = async (dir: string) => (await readdir(dir).catch(() => [])).sort();

async function listen(app: Parameters<typeof createServer>[1]): Promise<{ server: Server; port: number }> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe('a client that disconnects mid-upload', () => {
  it.each(['content-length', 'chunked'] as const)('leaves no record, no usage and no bytes (%s body)', async (framing) => {
    const asset = await createAsset(h, owner);
    const used = await usedBytes(h, owner, allocation.id);
    const { server, port } = await listen(h.commandApp);
    try {
      const boundary = 'cairn-boundary-1f2e3d';
      const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
      const file = randomBytes(8 * MiB);
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
      const socket = connect(port, '127.0.0.1');
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      let answered = '';
      socket.on('data', (d: Buffer) => (answered += d.toString()));
      socket.on('error', () => undefined);
      const framingHeader = framing === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${head.length + file.length + tail.length}`;
      socket.write(`POST /api/assets/${asset.id}/content/ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${owner.token}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\n${framingHeader}\r\n\r\n`);
      const send = (bytes: Buffer) => socket.write(framing === 'chunked' ? Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]) : bytes);
      send(head);
      // A third of the file, then nothing more: the service is writing it to the repository.
      for (let offset = 0; offset < file.length / 3; offset += 256 * 1024) send(file.subarray(offset, offset + 256 * 1024));
      const partials = path.join(repo.dir, '.partial');
      await eventually(async () => {
        for (const name of await filesIn(partials)) if ((await stat(path.join(partials, name)).catch(() => null))?.size) return true;
        return false;
      }, 10_000);
      socket.destroy();

      // The write is given up and its partial file removed.
      await eventually(async () => (await filesIn(partials)).length === 0, 10_000);
      expect(answered).toBe('');
      expect(await listContent(h, owner, asset.id)).toEqual([]);
      expect(await usedBytes(h, owner, allocation.id)).toBe(used);
      expect(await filesIn(path.join(repo.dir, 'assets', asset.id))).toEqual([]);
      // The service goes on: the next upload of the same asset is whole.
      const next = await upload(h, owner, asset.id, Buffer.from('after the disconnect'));
      expect(next.status, JSON.stringify(next.body)).toBe(201);
      expect(await filesIn(path.join(repo.dir, 'assets', asset.id))).toEqual([(next.body as Content).id]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('the upload limit (CAIRN_UPLOAD_LIMIT_BYTES), apart from the allocation', () => {
  it('takes an upload of exactly the limit and answers 413 past it, storing nothing', async () => {
    const smallAdmin = await small.createUser({ admin: true });
    const uploader = await small.createUser();
    const smallRepo = await fsRepository(small, 'limited');
    const room = await grantAllocation(small, smallAdmin, { owner_type: 'user', owner_id: uploader.id, repository_id: smallRepo.id, limit_bytes: 10 * MiB });
    const asset = await createAsset(small, uploader);

    const fits = await upload(small, uploader, asset.id, randomBytes(uploadLimit));
    expect(fits.status, JSON.stringify(fits.body)).toBe(201);
    for (const size of [uploadLimit + 1, 2 * MiB]) {
      const res = await upload(small, uploader, asset.id, randomBytes(size));
      expect(res.status, `${size} bytes: ${JSON.stringify(res.body)}`).toBe(413);
      expect(res.body.code).toBe('payload_too_large');
    }
    expect((await listContent(small, uploader, asset.id)).map((c) => c.id)).toEqual([(fits.body as Content).id]);
    expect(await usedBytes(small, uploader, room.id)).toBe(uploadLimit);
    expect(await filesIn(path.join(smallRepo.dir, 'assets', asset.id))).toEqual([(fits.body as Content).id]);
    expect(await filesIn(path.join(smallRepo.dir, '.partial'))).toEqual([]);
  });
});

describe('extraction disabled (CAIRN_METADATA_EXTRACTION=disabled)', () => {
  it('records new content as not_extracted and answers extract-metadata 503, after 404 and 403', async () => {
    const smallAdmin = await small.createUser({ admin: true });
    const uploader = await small.createUser();
    const viewer = await small.createUser();
    const stranger = await small.createUser();
    const smallRepo = await fsRepository(small, 'no-extraction');
    await grantAllocation(small, smallAdmin, { owner_type: 'user', owner_id: uploader.id, repository_id: smallRepo.id, limit_bytes: MiB });
    const asset = await createAsset(small, uploader);
    const res = await upload(small, uploader, asset.id, Buffer.from('a,b\n1,2\n'), { filename: 'rows.csv', contentType: 'text/csv' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const content = res.body as Content;
    expect(content).toMatchObject({ metadata_status: 'not_extracted', metadata: null, metadata_extracted_at: null });
    // No extraction job was recorded for it.
    const { rows } = await small.resources.pool.query('select id from job_outbox where subject_id = $1', [content.id]);
    expect(rows).toEqual([]);

    const extract = (caller: User, contentId = content.id) => request(small.commandApp).post(`/api/assets/${asset.id}/content/${contentId}/extract-metadata/`).set(bearer(caller));
    expect((await extract(stranger)).status).toBe(404);
    await setPermissions(small, uploader, asset.id, [{ subject_type: 'user', subject_id: viewer.id, flags: 1 | 4 }]);
    const forbidden = await extract(viewer);
    expect(forbidden.status).toBe(403);
    expect((await extract(uploader, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const disabled = await extract(uploader);
    expect(disabled.status).toBe(503);
    expect(disabled.body.code).toBe('extraction_disabled');
    const after = await request(small.queryApp).get(`/api/assets/${asset.id}/content/${content.id}/`).set(bearer(uploader));
    expect(after.body).toMatchObject({ metadata_status: 'not_extracted', metadata: null });
  });
});

describe('each extractor through HTTP, on files the test makes', () => {
  async function uploadAndExtract(bytes: Buffer | Uint8Array, filename: string, contentType: string): Promise<Content> {
    const asset = await createAsset(h, owner);
    const res = await upload(h, owner, asset.id, Buffer.from(bytes), { filename, contentType });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const extracted = await request(h.commandApp).post(`/api/assets/${asset.id}/content/${(res.body as Content).id}/extract-metadata/`).set(bearer(owner));
    expect(extracted.status, JSON.stringify(extracted.body)).toBe(200);
    return extracted.body as Content;
  }

  it('gives the dimensions of a PNG', async () => {
    const content = await uploadAndExtract(png(3, 2), 'pixel.png', 'image/png');
    expect(content).toMatchObject({ metadata_status: 'succeeded', metadata_error: null, metadata: { media_type: 'image/png', image: { width: 3, height: 2 } } });
    expect(Date.parse(content.metadata_extracted_at ?? '')).not.toBeNaN();
  });

  it('gives the columns and row count of a CSV and a TSV', async () => {
    const csv = await uploadAndExtract(Buffer.from('id,name,score\r\n1,Ann,"9,5"\r\n2,Bob,7\r\n3,"Cy\nJr",8\r\n'), 'scores.csv', 'text/csv');
    expect(csv).toMatchObject({ metadata_status: 'succeeded', metadata: { media_type: 'text/csv', table: { format: 'csv', columns: ['id', 'name', 'score'], column_count: 3, row_count: 3 } } });
    const tsv = await uploadAndExtract(Buffer.from('a\tb\n1\t2\n3\t4\n'), 'pairs.tsv', 'text/tab-separated-values');
    expect(tsv).toMatchObject({ metadata_status: 'succeeded', metadata: { table: { format: 'tsv', columns: ['a', 'b'], row_count: 2 } } });
  });

  it('gives the encoding and line count of text', async () => {
    const content = await uploadAndExtract(Buffer.from('première ligne\nsecond line\r\nthird'), 'notes.txt', 'text/plain');
    expect(content).toMatchObject({ metadata_status: 'succeeded', metadata: { media_type: 'text/plain', text: { encoding: 'utf-8', line_count: 3 } } });
  });

  it('gives the page count and document info of a PDF made with pdf-lib', async () => {
    const document = await PDFDocument.create();
    for (let page = 0; page < 4; page += 1) document.addPage();
    document.setTitle('Field Notes');
    document.setAuthor('Mary Anning');
    const content = await uploadAndExtract(await document.save(), 'notes.pdf', 'application/pdf');
    expect(content).toMatchObject({ metadata_status: 'succeeded', metadata: { media_type: 'application/pdf', pdf: { pages: 4, encrypted: false, title: 'Field Notes', author: 'Mary Anning' } } });
  });

  it('answers for corrupt files with a failed or partial extraction, never a 500, also in the background', async () => {
    // A PNG signature then garbage: no image to measure, so no dimensions are made up.
    const brokenPng = await uploadAndExtract(Buffer.concat([png(1, 1).subarray(0, 8), noise(512)]), 'broken.png', 'image/png');
    expect(['succeeded', 'failed']).toContain(brokenPng.metadata_status);
    expect(brokenPng.metadata).toMatchObject({ size_bytes: 520 });
    expect(brokenPng.metadata).not.toHaveProperty('image');
    if (brokenPng.metadata_status === 'failed') expect(brokenPng.metadata_error).toBeTruthy();

    // A JPEG whose header is garbage: failed, with the error and what was found before it.
    const brokenJpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x03]), noise(64)]);
    const now = await uploadAndExtract(brokenJpeg, 'broken.jpg', 'image/jpeg');
    expect(now).toMatchObject({ metadata_status: 'failed', metadata: { media_type: 'image/jpeg', size_bytes: brokenJpeg.length } });
    expect(now.metadata_error).toMatch(/image/);

    const workers = await startJobWorkers(h);
    try {
      const asset = await createAsset(h, owner);
      const content = (await upload(h, owner, asset.id, brokenJpeg, { filename: 'again.jpg', contentType: 'image/jpeg' })).body as Content;
      expect(content.metadata_status).toBe('pending');
      const settled = await eventually(async () => {
        const res = await request(h.queryApp).get(`/api/assets/${asset.id}/content/${content.id}/`).set(bearer(owner));
        return res.body.metadata_status === 'pending' ? null : (res.body as Content);
      });
      expect(settled).toMatchObject({ metadata_status: 'failed', metadata: { media_type: 'image/jpeg' } });
    } finally {
      await workers.stop();
    }
  });
});

type Exchange = { readonly method: string; readonly url: URL; readonly status: number };

/**
 * An HTTP proxy in front of the S3 server that can hold requests: those `hold` picks get no
 * answer, so the client waits there as long as the test likes (a copy stopped mid-way).
 */
async function startHoldingProxy(targetPort: number) {
  let hold: (method: string, url: URL) => boolean = () => false;
  const held: ServerResponse[] = [];
  const done: Exchange[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const method = req.method ?? 'GET';
    if (hold(method, url)) {
      held.push(res);
      return;
    }
    // `expect` is not signed; Node answers 100-continue to the client itself.
    const { expect: _expect, ...headers } = req.headers;
    const upstream = httpRequest({ host: '127.0.0.1', port: targetPort, method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.on('end', () => done.push({ method, url, status: answer.statusCode ?? 0 }));
    });
    upstream.on('error', () => res.destroy());
    req.on('error', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    held,
    done,
    holding(rule: (method: string, url: URL) => boolean) {
      hold = rule;
      done.length = 0;
    },
    release() {
      hold = () => false;
      for (const res of held.splice(0)) res.destroy();
    },
    async stop() {
      this.release();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

describe('a migration worker killed mid-copy', () => {
  it('leaves a state that the next run completes: no byte lost, no record pointing at nothing', async () => {
    const bucket = 'killed-worker';
    await s3.createBucket(bucket);
    const proxy = await startHoldingProxy(s3.port);
    const children: ServerProcess[] = [];
    try {
      // The service reaches the bucket through the proxy; the test looks into it directly.
      const target = { kind: 's3', endpoint: proxy.endpoint, bucket, prefix: 'moved', region: 'us-east-1' } as const;
      const targetId = (await createRepository(h.resources, 'killed-worker-target', target)).id;
      const bucketStore: BlobStore = openBlobStore({ ...target, endpoint: s3.endpoint }, s3.credentials);
      const targetAllocation = await grantAllocation(h, admin, { owner_type: 'user', owner_id: owner.id, repository_id: targetId, limit_bytes: 200 * MiB });

      const asset = await createAsset(h, owner);
      const files = [randomBytes(1000), randomBytes(30 * MiB)];
      const contents: Content[] = [];
      for (const [i, bytes] of files.entries()) {
        const res = await upload(h, owner, asset.id, bytes, { filename: `object-${i}.bin` });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        contents.push(res.body as Content);
      }
      const [first, big] = contents as [Content, Content];
      const total = files.reduce((sum, b) => sum + b.length, 0);
      const sourceUsed = await usedBytes(h, owner, allocation.id);
      const targetUsed = await usedBytes(h, owner, targetAllocation.id);

      const start = await request(h.commandApp).post(`/api/assets/${asset.id}/migrations/`).set(bearer(owner)).send({ target_repository_id: targetId });
      expect(start.status, JSON.stringify(start.body)).toBe(201);
      const migrationId = start.body.id as string;
      const migrationNow = async () => ((await request(h.queryApp).get(`/api/assets/${asset.id}/migrations/`).set(bearer(owner))).body as { id: string; status: string; attempts: number }[]).find((m) => m.id === migrationId);
      const recordOf = async (c: Content) => (await request(h.queryApp).get(`/api/assets/${asset.id}/content/${c.id}/`).set(bearer(owner))).body as Content;
      const sourceFile = (c: Content) => path.join(repo.dir, ...c.key.split('/'));

      /** A `cairn serve --role worker` process (the outbox runner: no REDIS_URL), killed with SIGKILL once `reached` holds. */
      const runWorkerUntil = async (reached: () => boolean) => {
        const child = await startCairn(['--role', 'worker'], {
          DATABASE_URL: h.databaseUrl,
          REDIS_URL: '',
          CAIRN_PUBLIC_URL: publicUrl,
          CAIRN_LOG_LEVEL: 'silent',
          CAIRN_S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
          CAIRN_S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
        });
        children.push(child);
        await eventually(async () => reached(), 30_000);
        const exited = new Promise((resolve) => child.child.once('exit', resolve));
        child.child.kill('SIGKILL');
        await exited;
        proxy.release();
      };
      // The dead worker's lease on the job (five minutes) runs out: what the next worker waits for.
      const leaseRunsOut = () => h.resources.pool.query(`update job_outbox set lease_until = now() - interval '1 second' where subject_id = $1 and lease_until is not null`, [migrationId]);
      const expectStillRunning = async (attempts: number) => {
        expect(await migrationNow()).toMatchObject({ status: 'running', attempts });
        expect((await request(h.queryApp).get(`/api/assets/${asset.id}/`).set(bearer(owner))).body.is_migrating).toBe(true);
        // Running is not failed: there is nothing to retry by hand.
        expect((await request(h.commandApp).post(`/api/assets/${asset.id}/migrations/${migrationId}/retry/`).set(bearer(owner))).status).toBe(409);
      };
      /** Every record points at a whole object: its repository holds bytes with its checksum. */
      const expectWholeRecords = async () => {
        for (const [i, c] of contents.entries()) {
          const record = await recordOf(c);
          const bytes = files[i] as Buffer;
          expect(record.sha256).toBe(sha(bytes));
          if (record.repository_id === targetId) expect(await bucketStore.inspect(c.key)).toEqual({ size: bytes.length, sha256: sha(bytes) });
          else expect(sha(await readFile(sourceFile(c)))).toBe(sha(bytes));
        }
      };

      // 1. Killed mid-copy: the small object is copied whole, the big one's upload has its
      //    first part in the bucket and the others held; records switch a chunk at a time,
      //    after its copies, so both still point at the source.
      const partOf = (url: URL) => url.searchParams.get('partNumber');
      proxy.holding((method, url) => method === 'PUT' && partOf(url) !== null && partOf(url) !== '1');
      await runWorkerUntil(() => proxy.held.length > 0 && proxy.done.some((e) => partOf(e.url) === '1' && e.status === 200));
      await expectStillRunning(1);
      expect(await recordOf(first)).toMatchObject({ repository_id: repo.id });
      expect(await bucketStore.inspect(first.key)).toEqual({ size: files[0]?.length, sha256: sha(files[0] as Buffer) });
      expect(await recordOf(big)).toMatchObject({ repository_id: repo.id });
      expect(await bucketStore.inspect(big.key)).toBeNull();
      await expectWholeRecords();

      // 2. Killed after the copy, before the switch: the whole object is in the bucket (the
      //    worker is reading it back to verify it), the record still on the source.
      await leaseRunsOut();
      proxy.holding((method) => method === 'GET' && proxy.done.some((e) => e.method === 'POST' && e.url.searchParams.has('uploadId') && e.status === 200));
      await runWorkerUntil(() => proxy.held.length > 0);
      await expectStillRunning(2);
      expect(await bucketStore.inspect(big.key)).toEqual({ size: files[1]?.length, sha256: sha(files[1] as Buffer) });
      expect(await recordOf(big)).toMatchObject({ repository_id: repo.id });
      await expectWholeRecords();

      // 3. The next run finishes: the object already whole at the target is kept, the record
      //    switched, the source bytes removed.
      await leaseRunsOut();
      const workers = await startJobWorkers(h);
      try {
        await eventually(async () => (await migrationNow())?.status === 'succeeded', 30_000);
      } finally {
        await workers.stop();
      }
      expect(await migrationNow()).toMatchObject({ status: 'succeeded', attempts: 3 });
      for (const c of contents) expect(await recordOf(c)).toMatchObject({ repository_id: targetId, allocation_id: targetAllocation.id });
      await expectWholeRecords();
      expect(await filesIn(path.join(repo.dir, 'assets', asset.id))).toEqual([]);
      expect(await usedBytes(h, owner, allocation.id)).toBe(sourceUsed - total);
      expect(await usedBytes(h, owner, targetAllocation.id)).toBe(targetUsed + total);
      expect((await request(h.queryApp).get(`/api/assets/${asset.id}/`).set(bearer(owner))).body.is_migrating).toBe(false);
    } finally {
      for (const child of children) await child.stop();
      await proxy.stop();
    }
  });
});

/** Bytes from a fixed linear congruential sequence: binary, with NUL bytes, the same on every run. */
function noise(length: number): Buffer {
  const out = Buffer.alloc(length);
  let state = 12345;
  for (let i = 0; i < length; i += 1) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    out[i] = state >>> 16;
  }
  return out;
}

/** A truecolour PNG of black pixels. */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc(height * (1 + width * 3));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}
