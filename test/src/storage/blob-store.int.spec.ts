import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { BlobNotFoundError, BlobTooLargeError, fsBlobStore, openBlobStore, s3BlobStore, type BlobStore } from '@cairn/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server, type S3TestServer } from '../support/s3-server.ts';

const MiB = 1024 * 1024;

type Target = {
  readonly store: BlobStore;
  /** Files a failed fs write may have left (the fs store's `.partial/`); empty for s3. */
  leftovers(): Promise<string[]>;
  stop(): Promise<void>;
};

const kinds: ReadonlyArray<{ readonly kind: 'fs' | 's3'; start(): Promise<Target> }> = [
  {
    kind: 'fs',
    async start() {
      const root = await mkdtemp(path.join(os.tmpdir(), 'cairn-blobs-'));
      return {
        store: openBlobStore({ kind: 'fs', path: root }, null),
        leftovers: () => readdir(path.join(root, '.partial')).catch(() => []),
        stop: () => rm(root, { recursive: true, force: true }),
      };
    },
  },
  {
    kind: 's3',
    async start() {
      const server = await startS3Server();
      await server.createBucket('contract');
      const location = { kind: 's3', endpoint: server.endpoint, bucket: 'contract', prefix: 'repositories/one', region: 'us-east-1' } as const;
      return { store: openBlobStore(location, server.credentials), leftovers: async () => [], stop: () => server.stop() };
    },
  },
];

/** `size` random bytes made as they are read, and the SHA-256 that node:crypto gives them. */
function generated(size: number, chunkSize = 64 * 1024): { body: Readable; sha256: () => string } {
  const hash = createHash('sha256');
  let left = size;
  const body = new Readable({
    read() {
      if (left === 0) return void this.push(null);
      const chunk = randomBytes(Math.min(chunkSize, left));
      left -= chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
  return { body, sha256: () => hash.digest('hex') };
}

/** Sends `size` bytes, then fails as a client gone mid-upload does. */
function failingAfter(size: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) {
        this.destroy(new Error('client went away'));
        return;
      }
      const chunk = randomBytes(Math.min(64 * 1024, size - sent));
      sent += chunk.length;
      this.push(chunk);
    },
  });
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe.each(kinds)('$kind blob store', ({ kind, start }) => {
  let target: Target;
  let store: BlobStore;
  beforeAll(async () => {
    target = await start();
    store = target.store;
  });
  afterAll(() => target.stop());

  it('tells the size and SHA-256 of what it stored, and inspect reads the same', async () => {
    const data = randomBytes(100_000);
    const stored = await store.put('assets/a1/c1', Readable.from([data]));
    expect(stored).toEqual({ size: data.length, sha256: sha256(data) });
    expect(await store.inspect('assets/a1/c1')).toEqual(stored);
  });

  it('stores an empty object', async () => {
    const stored = await store.put('assets/a1/empty', Readable.from([]));
    expect(stored).toEqual({ size: 0, sha256: sha256(Buffer.alloc(0)) });
    expect(await store.inspect('assets/a1/empty')).toEqual(stored);
  });

  it('streams a 20 MB body made on the fly', async () => {
    const { body, sha256: expected } = generated(20 * MiB);
    const stored = await store.put('assets/a2/big', body, { maxBytes: 64 * MiB, contentType: 'application/octet-stream' });
    expect(stored).toEqual({ size: 20 * MiB, sha256: expected() });
    expect(await store.inspect('assets/a2/big')).toEqual(stored);
  });

  it('refuses a body past maxBytes and keeps nothing', async () => {
    await expect(store.put('assets/a3/small-limit', Readable.from([randomBytes(5_000)]), { maxBytes: 1_000 })).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(await store.inspect('assets/a3/small-limit')).toBeNull();
    expect(await target.leftovers()).toEqual([]);
  });

  it('refuses a body past maxBytes after several parts were sent, and keeps nothing', async () => {
    const { body } = generated(20 * MiB);
    const error = await store.put('assets/a3/large-limit', body, { maxBytes: 10 * MiB }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BlobTooLargeError);
    expect((error as BlobTooLargeError).maxBytes).toBe(10 * MiB);
    expect(await store.inspect('assets/a3/large-limit')).toBeNull();
    expect(await target.leftovers()).toEqual([]);
  });

  it.each([
    ['a few bytes', 3],
    ['12 MiB, past the first part of an s3 multipart upload', 12 * MiB],
  ])('keeps nothing when the body fails after %s', async (_label, size) => {
    const key = `assets/a4/failed-${size}`;
    await expect(store.put(key, failingAfter(size))).rejects.toThrow('client went away');
    expect(await store.inspect(key)).toBeNull();
    expect(await target.leftovers()).toEqual([]);
  });

  it('a failed write leaves an object already there as it was', async () => {
    const data = randomBytes(1_000);
    const stored = await store.put('assets/a5/kept', Readable.from([data]));
    await expect(store.put('assets/a5/kept', Readable.from([randomBytes(2_000)]), { maxBytes: 1_500 })).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(await store.inspect('assets/a5/kept')).toEqual(stored);
  });

  it('open streams the bytes', async () => {
    const data = randomBytes(300_000);
    await store.put('assets/a6/c', Readable.from([data]));
    expect((await readAll(await store.open('assets/a6/c'))).equals(data)).toBe(true);
  });

  it('a missing key: inspect is null, open throws BlobNotFoundError', async () => {
    expect(await store.inspect('assets/none/c')).toBeNull();
    const error = await store.open('assets/none/c').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BlobNotFoundError);
    expect((error as BlobNotFoundError).key).toBe('assets/none/c');
  });

  it('remove is idempotent', async () => {
    await store.put('assets/a7/c', Readable.from([Buffer.from('bytes')]));
    await store.remove('assets/a7/c');
    expect(await store.inspect('assets/a7/c')).toBeNull();
    await store.remove('assets/a7/c');
    await store.remove('assets/never/was');
  });

  it.each(['../x', '/abs', 'a//b', 'a/./b', 'a/../../b', '', 'a\\b'])('refuses the unsafe key %j', async (key) => {
    await expect(store.put(key, Readable.from([Buffer.from('x')]))).rejects.toThrow(/unsafe object key/);
    await expect(store.inspect(key)).rejects.toThrow(/unsafe object key/);
    await expect(store.open(key)).rejects.toThrow(/unsafe object key/);
    await expect(store.remove(key)).rejects.toThrow(/unsafe object key/);
  });

  if (kind === 'fs') {
    it('has no presigned URL', async () => {
      await store.put('assets/a8/c', Readable.from([Buffer.from('bytes')]));
      expect(await store.presignedUrl('assets/a8/c', { expiresInSeconds: 60, filename: 'c.txt' })).toBeNull();
    });
  } else {
    it('a presigned URL downloads the bytes as an attachment with plain fetch', async () => {
      const data = randomBytes(50_000);
      await store.put('assets/a8/c', Readable.from([data]), { contentType: 'text/csv' });
      const url = await store.presignedUrl('assets/a8/c', { expiresInSeconds: 60, filename: 'résumé "final".csv' });
      expect(url).not.toBeNull();
      const response = await fetch(url ?? '');
      expect(response.status).toBe(200);
      expect(Buffer.from(await response.arrayBuffer()).equals(data)).toBe(true);
      expect(response.headers.get('content-type')).toBe('text/csv');
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename="r_sum_ _final_.csv"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22.csv`);
    });
  }
});

describe('s3 blob store', () => {
  let server: S3TestServer;
  beforeAll(async () => {
    server = await startS3Server();
    await server.createBucket('layout');
  });
  afterAll(() => server.stop());

  const at = (prefix: string, bucket = 'layout') => s3BlobStore({ kind: 's3', endpoint: server.endpoint, bucket, prefix, region: 'us-east-1' }, server.credentials);

  it('keeps keys under the prefix, and at the bucket root without one', async () => {
    const data = Buffer.from('under the prefix');
    const stored = await at('tenants/t1').put('assets/a/c', Readable.from([data]));
    expect(await at('').inspect('tenants/t1/assets/a/c')).toEqual(stored);
    expect(await at('/tenants/t1/').inspect('assets/a/c')).toEqual(stored);
    expect(await at('').inspect('assets/a/c')).toBeNull();
  });

  it('a missing bucket is an error, not a missing object', async () => {
    // The repository is unavailable (503 storage_unavailable), with S3's answer as the cause.
    await expect(at('', 'no-such-bucket').inspect('assets/a/c')).rejects.toMatchObject({ name: 'StorageUnavailableError', cause: { name: 'NoSuchBucket' } });
  });

  it('an endpoint that answers 404 but is not S3 is an error, not a missing object', async () => {
    const web = createHttpServer((_req, res) => {
      res.statusCode = 404;
      res.end('not here');
    });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = web.address() as { port: number };
      const store = s3BlobStore({ kind: 's3', endpoint: `http://127.0.0.1:${port}`, bucket: 'layout', prefix: '', region: 'us-east-1' }, server.credentials);
      await expect(store.inspect('assets/a/c')).rejects.toThrow();
      await expect(store.open('assets/a/c')).rejects.not.toBeInstanceOf(BlobNotFoundError);
    } finally {
      web.closeAllConnections();
      await new Promise<void>((resolve) => web.close(() => resolve()));
    }
  });

  it('without credentials it signs with the SDK default chain (here the environment)', async () => {
    const saved = { id: process.env['AWS_ACCESS_KEY_ID'], secret: process.env['AWS_SECRET_ACCESS_KEY'] };
    process.env['AWS_ACCESS_KEY_ID'] = server.credentials.accessKeyId;
    process.env['AWS_SECRET_ACCESS_KEY'] = server.credentials.secretAccessKey;
    try {
      const store = s3BlobStore({ kind: 's3', endpoint: server.endpoint, bucket: 'layout', prefix: '', region: 'us-east-1' }, null);
      const data = Buffer.from('signed from the environment');
      expect(await store.put('assets/env/c', Readable.from([data]))).toEqual({ size: data.length, sha256: sha256(data) });
    } finally {
      for (const [name, value] of [['AWS_ACCESS_KEY_ID', saved.id], ['AWS_SECRET_ACCESS_KEY', saved.secret]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('an endpoint nobody listens on fails a write within seconds', async () => {
    const port = await closedPort();
    const store = s3BlobStore({ kind: 's3', endpoint: `http://127.0.0.1:${port}`, bucket: 'layout', prefix: '', region: 'us-east-1' }, server.credentials);
    const started = Date.now();
    await expect(store.put('assets/a/c', Readable.from([randomBytes(1_000)]))).rejects.toThrow();
    await expect(store.put('assets/a/big', generated(20 * MiB).body)).rejects.toThrow();
    await expect(store.inspect('assets/a/c')).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('a server restarted on the same port serves again (the unreachable-then-back target)', async () => {
    const first = await startS3Server();
    const location = { kind: 's3', endpoint: first.endpoint, bucket: 'again', prefix: '', region: 'us-east-1' } as const;
    const store = s3BlobStore(location, first.credentials);
    await first.createBucket('again');
    await store.put('assets/a/c', Readable.from([Buffer.from('one')]));
    await first.stop();
    await expect(store.inspect('assets/a/c')).rejects.toThrow();
    const second = await startS3Server({ port: first.port });
    try {
      expect(second.endpoint).toBe(first.endpoint);
      await second.createBucket('again');
      expect(await store.inspect('assets/a/c')).toBeNull();
      const data = Buffer.from('two');
      expect(await store.put('assets/a/c', Readable.from([data]))).toEqual({ size: 3, sha256: sha256(data) });
    } finally {
      await second.stop();
    }
  });
});

describe('fs blob store', () => {
  it('never writes outside its root', async () => {
    const parent = await mkdtemp(path.join(os.tmpdir(), 'cairn-blobs-parent-'));
    try {
      const store = fsBlobStore(path.join(parent, 'root'));
      await expect(store.put('../escaped', Readable.from([Buffer.from('x')]))).rejects.toThrow(/unsafe object key/);
      expect(existsSync(path.join(parent, 'escaped'))).toBe(false);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});

/** A port that was free a moment ago and that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
