import { execSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CairnProcess } from './cairn-process.ts';
import { withScratchDatabase } from './scratch-database.ts';
import { agent, api, createAsset, grant, load, prepare, startScript, startService, uploadContent, watchMemory, writeRandomFile, type ChildServer, type Setup } from './storage-service.ts';
import { num, printTable, type Cell } from './table.ts';
import { cpuSeconds } from './process-cpu.ts';

const mebibyte = 1024 * 1024;

/**
 * The test suite's S3 server (s3rver, with the ListParts, AbortMultipartUpload and SigV4
 * checks it lacks: test/src/support/s3-server.ts) in a child process, so that its work is
 * not counted as the service's nor the client's.
 */
function startTestS3(): Promise<ChildServer> {
  const script = `import('./test/src/support/s3-server.ts').then(async (m) => {
    const s3 = await m.startS3Server();
    await s3.createBucket('cairn-bench');
    console.log('listening ' + s3.port);
    process.on('SIGTERM', () => s3.stop().then(() => process.exit(0)));
  });`;
  return startScript(script, {}, 's3 test server');
}

type Upload = { id: string; part_size: number; part_count: number; part_urls: { part_number: number; size: number; url: string }[] };

/** PUTs one byte range of the file to a part URL, streamed, with its exact Content-Length. */
function putPart(url: string, file: string, start: number, size: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'PUT', agent, headers: { 'content-length': String(size), 'content-type': 'application/octet-stream' } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 || res.statusCode === 204 ? resolve() : reject(new Error(`part: ${res.statusCode}`))));
    });
    req.on('error', reject);
    createReadStream(file, { start, end: start + size - 1, highWaterMark: mebibyte }).on('error', reject).pipe(req);
  });
}

/**
 * Start, every part by 4 parallel clients, complete. The fs URLs name the service's public
 * URL (the bench's nominal one): they are sent to the port it listens on.
 */
async function directUpload(cairn: CairnProcess, setup: Setup, assetId: string, repositoryId: string, file: string, size: number): Promise<string> {
  const started = performance.now();
  let upload = await api<Upload>(cairn.url, setup.ownerToken, 'POST', `/api/assets/${assetId}/content/uploads/`, { filename: 'large.bin', size, repository_id: repositoryId, part_size: 16 * mebibyte });
  const pending = [...upload.part_urls];
  while (pending.length > 0 || upload.part_urls.length === 1000) {
    const worker = async () => {
      for (let next = pending.shift(); next; next = pending.shift()) {
        const url = new URL(next.url);
        const target = url.pathname.startsWith('/api/') ? `${cairn.url}${url.pathname}${url.search}` : next.url;
        await putPart(target, file, (next.part_number - 1) * upload.part_size, next.size);
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    if (upload.part_urls.length < 1000) break;
    upload = await api<Upload>(cairn.url, setup.ownerToken, 'GET', `/api/assets/${assetId}/content/uploads/${upload.id}/`);
    pending.push(...upload.part_urls);
    if (pending.length === 0) break;
  }
  const sent = performance.now();
  await api(cairn.url, setup.ownerToken, 'POST', `/api/assets/${assetId}/content/uploads/${upload.id}/complete/`);
  return `start and parts ${((sent - started) / 1000).toFixed(1)} s, complete ${((performance.now() - sent) / 1000).toFixed(1)} s`;
}

/**
 * `npm run bench -- uploads [--mb M]` (issue 25): one 1 GiB file (BENCH_SCALE scales it)
 * uploaded to an fs and an s3 repository, through the service (the multipart content route)
 * and direct (start, parts to their URLs by 4 clients, complete), against `cairn serve` in a
 * child process; MB/s, and the service's CPU seconds and resident memory for each.
 */
export async function uploadsBenchmark(scale: number): Promise<void> {
  const mbArg = process.argv.indexOf('--mb');
  const megabytes = mbArg > 0 ? Number(process.argv[mbArg + 1]) : Math.max(64, Math.round(1024 * scale));
  const size = megabytes * mebibyte;
  const commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  console.log(`\n=== uploads: ${num(megabytes)} MB through the service and direct; commit ${commit}, ${new Date().toISOString()}, load ${load()}`);
  const work = await mkdtemp(path.join(tmpdir(), 'cairn-bench-uploads-'));
  const s3 = await startTestS3();
  try {
    await withScratchDatabase('uploads', async (url) => {
      const setup = await prepare(url, work, s3);
      const cairn = await startService(setup, false, null);
      try {
        const file = path.join(work, 'large.bin');
        await writeRandomFile(file, size);
        const rows: Cell[][] = [];
        for (const kind of ['fs', 's3'] as const) {
          const repositoryId = kind === 'fs' ? setup.repositories.fs : setup.repositories.s3;
          if (!repositoryId) continue;
          await grant(cairn, setup, repositoryId);
          for (const way of ['service', 'direct'] as const) {
            const assetId = await createAsset(cairn, setup, `${kind} ${way}`);
            const memory = watchMemory(cairn.pid);
            const cpuBefore = cpuSeconds(cairn.pid);
            const started = performance.now();
            let split = '';
            if (way === 'service') await uploadContent(cairn.url, setup.ownerToken, assetId, repositoryId, 'large.bin', 'application/octet-stream', { file, size });
            else split = ` (${await directUpload(cairn, setup, assetId, repositoryId, file, size)})`;
            const took = (performance.now() - started) / 1000;
            const cpu = (cpuSeconds(cairn.pid) ?? 0) - (cpuBefore ?? 0);
            const used = memory.stop();
            rows.push([kind, way, took.toFixed(1), num(megabytes / took), cpu.toFixed(1), num((cpu / took) * 100), num(used.beforeMb), num(used.peakMb), load()]);
            console.log(`  ${kind} ${way}: ${took.toFixed(1)} s${split}, ${num(megabytes / took)} MB/s, service CPU ${cpu.toFixed(1)} s, RSS ${num(used.beforeMb)} → ${num(used.peakMb)} MB, load ${load()}`);
          }
        }
        printTable(`${num(megabytes)} MB, one file`, ['repository', 'path', 's', 'MB/s', 'service CPU s', 'service CPU %', 'RSS before MB', 'RSS peak MB', 'load 1m 5m 15m'], rows);
      } finally {
        await cairn.stop();
      }
    });
  } finally {
    agent.destroy();
    await s3.stop();
    await rm(work, { recursive: true, force: true });
  }
}
