import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomFillSync } from 'node:crypto';
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { loadavg } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { S3Client } from '@aws-sdk/client-s3';
import { openResources, repositoriesCreate, tokensIssue, usersCreate } from '@cairn/cli';
import { createLogger, loadConfig } from '@cairn/platform';
import { benchPublicUrl, startCairn, type CairnProcess } from './cairn-process.ts';

/**
 * What the storage benchmarks (storage.bench.ts, uploads.bench.ts) run against and measure
 * with: the service started with its repositories and users, s3rver and a bare upload sink in
 * child processes, the service's memory, and the HTTP calls they send.
 */
export const mebibyte = 1024 * 1024;
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const bucket = 'cairn-bench';
const s3Credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
export const seconds = (startedMs: number) => (performance.now() - startedMs) / 1000;

// ---------------------------------------------------------------------------------------
// The service's resident memory: /proc/<pid>/status, VmHWM reset through clear_refs (5)
// at the start of a phase, and VmRSS sampled every 10 ms as a check.

export type Memory = { beforeMb: number; peakMb: number; hwmMb: number };

function statusField(text: string, name: string): number {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

export function watchMemory(pid: number): { stop(): Memory } {
  const read = () => readFileSync(`/proc/${pid}/status`, 'utf8');
  const beforeMb = statusField(read(), 'VmRSS');
  let reset = true;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    reset = false;
  }
  let peakMb = beforeMb;
  const timer = setInterval(() => {
    try {
      peakMb = Math.max(peakMb, statusField(read(), 'VmRSS'));
    } catch {
      // the process is gone; stop() says so
    }
  }, 10);
  return {
    stop() {
      clearInterval(timer);
      const text = read();
      peakMb = Math.max(peakMb, statusField(text, 'VmRSS'));
      return { beforeMb, peakMb, hwmMb: reset ? statusField(text, 'VmHWM') : Number.NaN };
    },
  };
}

// ---------------------------------------------------------------------------------------
// HTTP: multipart uploads streamed from a buffer or a file, with a Content-Length.

export const agent = new Agent({ keepAlive: true, maxSockets: 64 });

export type Source = { readonly bytes: Buffer } | { readonly file: string; readonly size: number };
export type ContentRecord = { id: string; key: string; size: number; sha256: string; metadata_status: string; metadata_error: string | null; created_at: string; metadata_extracted_at: string | null };

export function uploadContent(base: string, token: string, assetId: string, repositoryId: string, filename: string, contentType: string, source: Source): Promise<ContentRecord> {
  const boundary = `cairnbench${randomBytes(12).toString('hex')}`;
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="repository_id"\r\n\r\n${repositoryId}\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${contentType}\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  const size = 'bytes' in source ? source.bytes.length : source.size;
  return new Promise<ContentRecord>((resolve, reject) => {
    const req = httpRequest(
      `${base}/api/assets/${assetId}/content/`,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(Buffer.byteLength(head) + size + Buffer.byteLength(tail)),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode === 201) resolve(JSON.parse(text) as ContentRecord);
          else reject(new Error(`upload of ${filename}: ${res.statusCode} ${text.slice(0, 300)}`));
        });
      },
    );
    req.on('error', reject);
    req.write(head);
    if ('bytes' in source) {
      req.write(source.bytes);
      req.end(tail);
      return;
    }
    const file = createReadStream(source.file, { highWaterMark: mebibyte });
    file.on('error', reject);
    file.on('end', () => req.end(tail));
    file.pipe(req, { end: false });
  });
}

export async function api<T>(base: string, token: string, method: string, pathname: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${pathname}: ${response.status} ${text.slice(0, 300)}`);
  return (text === '' ? null : JSON.parse(text)) as T;
}

/** `count` operations by `clients` concurrent callers; the wall time and each one's latency. */
export async function concurrently(count: number, clients: number, op: (i: number) => Promise<unknown>): Promise<{ seconds: number; latencies: number[] }> {
  let next = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(clients, count) }, async () => {
      for (;;) {
        const i = next;
        next += 1;
        if (i >= count) return;
        const t = performance.now();
        await op(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { seconds: seconds(started), latencies };
}

// ---------------------------------------------------------------------------------------
// s3rver in a child process of its own (the approach of test/src/support/s3-server.ts), so
// that neither the service nor this process's clients share its event loop.

export type ChildServer = { readonly endpoint: string; readonly pid: number; stop(): Promise<void> };

const s3rverScript = `
const { createServer } = require('node:http');
const S3rver = require('s3rver');
const app = new S3rver({ directory: process.env.S3RVER_DIR, silent: true });
const server = createServer(app.callback());
server.listen(0, '127.0.0.1', () => {
  app.store.putBucket(process.env.S3RVER_BUCKET).then(
    () => console.log('listening ' + server.address().port),
    (error) => { console.error(error); process.exit(1); },
  );
});
process.on('SIGTERM', () => { server.closeAllConnections(); server.close(() => process.exit(0)); });
`;

export async function startS3rver(directory: string): Promise<ChildServer> {
  await mkdir(directory, { recursive: true });
  return startScript(s3rverScript, { S3RVER_DIR: directory, S3RVER_BUCKET: bucket }, 's3rver');
}

// A bare Node upload sink in a child process: the same multipart body parsed by busboy,
// hashed with SHA-256 and written to a file, answered with 201. No auth, SQL or events:
// what streaming an upload costs in Node on this machine, the service's own ceiling.
export const sinkScript = `
const { createServer } = require('node:http');
const { createHash, randomUUID } = require('node:crypto');
const { createWriteStream } = require('node:fs');
const { Transform } = require('node:stream');
const { pipeline } = require('node:stream/promises');
const busboy = require('busboy');
const server = createServer((req, res) => {
  const parser = busboy({ headers: req.headers });
  parser.on('file', (_name, stream) => {
    const hash = createHash('sha256');
    let size = 0;
    const measuring = new Transform({ transform(chunk, _e, done) { size += chunk.length; hash.update(chunk); done(null, chunk); } });
    pipeline(stream, measuring, createWriteStream(process.env.SINK_DIR + '/' + randomUUID(), { flags: 'wx' })).then(
      () => { res.statusCode = 201; res.end(JSON.stringify({ size, sha256: hash.digest('hex') })); },
      (error) => { res.statusCode = 500; res.end(String(error)); },
    );
  });
  req.pipe(parser);
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
process.on('SIGTERM', () => { server.closeAllConnections(); server.close(() => process.exit(0)); });
`;

/** A child process running `script` (CommonJS, from the repository root), once it prints `listening PORT`. */
export async function startScript(script: string, env: Record<string, string>, name: string): Promise<ChildServer> {
  const child: ChildProcess = spawn(process.execPath, ['-e', script], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout ?? process.stdin });
    lines.on('line', (line) => {
      const match = /^listening (\d+)$/.exec(line);
      if (match) resolve(Number(match[1]));
    });
    void exited.then((code) => reject(new Error(`${name} exited (${code})`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A client as the service's s3 store makes it (platform/src/storage/s3-sdk-blob-store.ts). */
export function s3Client(endpoint: string): S3Client {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: s3Credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

// ---------------------------------------------------------------------------------------

export type Setup = {
  readonly url: string;
  readonly work: string;
  readonly ownerToken: string;
  readonly adminToken: string;
  readonly ownerId: string;
  readonly repositories: { fs: string; s3: string | null; archive: string };
  readonly dirs: { fs: string; archive: string };
};

/** Users, tokens and repositories, made with the operator commands before the service starts. */
export async function prepare(url: string, work: string, s3: ChildServer | null): Promise<Setup> {
  const resources = await openResources(loadConfig({ DATABASE_URL: url, CAIRN_LOG_LEVEL: 'silent', CAIRN_PUBLIC_URL: benchPublicUrl, CAIRN_DATA_DIR: path.join(work, 'data') }), {
    logger: createLogger('silent'),
  });
  try {
    await usersCreate(resources, ['--email', 'storage-admin@example.org', '--name', 'Storage admin', '--system-admin']);
    const owner = await usersCreate(resources, ['--email', 'storage-owner@example.org', '--name', 'Storage owner']);
    const adminToken = (await tokensIssue(resources, ['--user', 'storage-admin@example.org', '--ttl', '86400'])).access_token;
    const ownerToken = (await tokensIssue(resources, ['--user', 'storage-owner@example.org', '--ttl', '86400'])).access_token;
    const dirs = { fs: path.join(work, 'repo-fs'), archive: path.join(work, 'repo-archive') };
    const fs = await repositoriesCreate(resources, ['--name', 'bench-fs', '--kind', 'fs', '--path', dirs.fs]);
    const archive = await repositoriesCreate(resources, ['--name', 'bench-archive', '--kind', 'fs', '--path', dirs.archive]);
    const s3Repository = s3 ? await repositoriesCreate(resources, ['--name', 'bench-s3', '--kind', 's3', '--endpoint', s3.endpoint, '--bucket', bucket]) : null;
    return { url, work, ownerToken, adminToken, ownerId: owner.id, repositories: { fs: fs.id, s3: s3Repository?.id ?? null, archive: archive.id }, dirs };
  } finally {
    await resources.close();
  }
}

/** `cairn serve --role all` with these settings added to the environment (S3 credentials, data directory, extraction on or off). */
export async function startService(setup: Setup, extraction: boolean, cpuProf: string | null): Promise<CairnProcess> {
  const settings: Record<string, string> = {
    CAIRN_DATA_DIR: path.join(setup.work, 'data'),
    CAIRN_S3_ACCESS_KEY_ID: s3Credentials.accessKeyId,
    CAIRN_S3_SECRET_ACCESS_KEY: s3Credentials.secretAccessKey,
    CAIRN_METADATA_EXTRACTION: extraction ? 'enabled' : 'disabled',
    ...(cpuProf ? { NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --cpu-prof --cpu-prof-dir=${cpuProf}`.trim() } : {}),
  };
  // No REDIS_URL: the jobs run in the service's process, on the outbox.
  const saved = Object.fromEntries([...Object.keys(settings), 'REDIS_URL'].map((k) => [k, process.env[k]]));
  Object.assign(process.env, settings);
  delete process.env['REDIS_URL'];
  try {
    return await startCairn('all', setup.url, 19_000 + Math.floor(Math.random() * 800));
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

export async function createAsset(cairn: CairnProcess, setup: Setup, title: string): Promise<string> {
  return (await api<{ id: string }>(cairn.url, setup.ownerToken, 'POST', '/api/assets/', { title })).id;
}

export async function grant(cairn: CairnProcess, setup: Setup, repositoryId: string): Promise<void> {
  await api(cairn.url, setup.adminToken, 'POST', '/api/allocations/', { owner_type: 'user', owner_id: setup.ownerId, repository_id: repositoryId, limit_bytes: 2 ** 40 });
}


export async function writeRandomFile(file: string, bytes: number): Promise<void> {
  const handle = await open(file, 'w');
  try {
    const chunk = Buffer.alloc(4 * mebibyte);
    for (let written = 0; written < bytes; written += chunk.length) {
      randomFillSync(chunk);
      await handle.write(chunk, 0, Math.min(chunk.length, bytes - written));
    }
  } finally {
    await handle.close();
  }
}
