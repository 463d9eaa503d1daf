import { execSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { extractMetadata } from '@cairn/workers/extraction';
import type { CairnProcess } from './cairn-process.ts';
import { withScratchDatabase } from './scratch-database.ts';
import { spread } from './stats.ts';
import { num, printTable, ratio, type Cell } from './table.ts';
import { textArgument } from './cli-arguments.ts';
import { agent, api, bucket, concurrently, createAsset, grant, load, mebibyte, prepare, s3Client, seconds, sinkScript, startS3rver, startScript, startService, uploadContent, watchMemory, writeRandomFile, type ChildServer, type ContentRecord, type Memory, type Setup, type Source } from './storage-service.ts';

/** The service's defaults (CAIRN_EXTRACTION_TIMEOUT_MS, CAIRN_EXTRACTION_MEMORY_MB), for the direct calls. */
const extractionLimits = { timeoutMs: 30_000, maxMemoryMb: 256 };

type Options = {
  smallFiles: number;
  smallMb: number;
  largeMb: number;
  largeRuns: number;
  clients: number;
  extractions: number;
  objects: number;
  objectKb: number;
  s3: boolean;
  only: 'uploads' | 'extraction' | 'migration' | null;
  cpuProf: string | null;
};

function parseOptions(args: readonly string[], scale: number): Options {
  const scaled = (n: number, min: number) => Math.max(min, Math.round(n * scale));
  const options: Options = {
    smallFiles: scaled(200, 10),
    smallMb: 1,
    largeMb: 200,
    largeRuns: 2,
    clients: 4,
    extractions: scaled(200, 10),
    objects: scaled(1000, 20),
    objectKb: 4,
    s3: true,
    only: null,
    cpuProf: null,
  };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    const value = () => textArgument(args, (i += 1), arg);
    const count = () => {
      const n = Number(value().replace(/_/g, ''));
      if (!(n > 0)) throw new Error(`${arg} needs a positive number`);
      return n;
    };
    if (arg === '--small-files') options.smallFiles = Math.round(count());
    else if (arg === '--small-mb') options.smallMb = count();
    else if (arg === '--large-mb') options.largeMb = count();
    else if (arg === '--large-runs') options.largeRuns = Math.round(count());
    else if (arg === '--clients') options.clients = Math.round(count());
    else if (arg === '--extractions') options.extractions = Math.round(count());
    else if (arg === '--objects') options.objects = Math.round(count());
    else if (arg === '--object-kb') options.objectKb = count();
    else if (arg === '--no-s3') options.s3 = false;
    else if (arg === '--only') {
      const v = value();
      if (v !== 'uploads' && v !== 'extraction' && v !== 'migration') throw new Error('--only takes uploads, extraction or migration');
      options.only = v;
    } else if (arg === '--cpu-prof') options.cpuProf = path.resolve(value());
    else
      throw new Error(
        `unknown option ${arg}; options: --small-files N, --small-mb M, --large-mb M, --large-runs N, --clients C, --extractions N, --objects N, --object-kb K, --no-s3, --only uploads|extraction|migration, --cpu-prof DIR`,
      );
  }
  return options;
}

// ---------------------------------------------------------------------------------------
// Uploads

type UploadRow = Cell[];

async function uploads(cairn: CairnProcess, setup: Setup, s3: ChildServer | null, options: Options): Promise<void> {
  const small = randomBytes(Math.round(options.smallMb * mebibyte));
  const largeBytes = Math.round(options.largeMb * mebibyte);
  const largeFile = path.join(setup.work, 'large.bin');
  let started = performance.now();
  await writeRandomFile(largeFile, largeBytes);
  console.log(`wrote ${num(options.largeMb)} MB of random bytes in ${seconds(started).toFixed(1)} s`);

  started = performance.now();
  const hash = createHash('sha256');
  await pipeline(createReadStream(largeFile, { highWaterMark: mebibyte }), async function (source) {
    for await (const chunk of source) hash.update(chunk as Buffer);
  });
  hash.digest();
  const hashMbps = options.largeMb / seconds(started);
  console.log(`context: reading the ${num(options.largeMb)} MB file and hashing it with SHA-256 in this process: ${num(hashMbps)} MB/s`);

  const rows: UploadRow[] = [];
  const targets: { kind: 'fs' | 's3'; repositoryId: string }[] = [{ kind: 'fs', repositoryId: setup.repositories.fs }];
  if (s3 && setup.repositories.s3) targets.push({ kind: 's3', repositoryId: setup.repositories.s3 });
  const limitDir = path.join(setup.work, 'limit-writes');
  const client = s3 ? s3Client(s3.endpoint) : null;
  const sinkDir = path.join(setup.work, 'sink');
  await mkdir(sinkDir, { recursive: true });
  const bareSink = await startScript(sinkScript, { SINK_DIR: sinkDir }, 'the upload sink');
  try {
    for (const target of targets) rows.push(...(await uploadsTo(target, bareSink)));
  } finally {
    client?.destroy();
    await bareSink.stop();
    await rm(sinkDir, { recursive: true, force: true });
  }

  async function uploadsTo(target: { kind: 'fs' | 's3'; repositoryId: string }, bare: ChildServer): Promise<UploadRow[]> {
    const targetRows: UploadRow[] = [];
    // The sink writes to a file: a ceiling for fs; for s3 the limits are s3rver's own.
    const sink = target.kind === 'fs' ? bare : null;
    await grant(cairn, setup, target.repositoryId);
    const asset = await createAsset(cairn, setup, `Uploads to ${target.kind}`);
    const send = (i: number, source: Source, name: string) => uploadContent(cairn.url, setup.ownerToken, asset, target.repositoryId, `${name}-${i}.bin`, 'application/octet-stream', source);
    // Warm: connections, the repository's store, JIT.
    await concurrently(options.clients * 2, options.clients, (i) => send(i, { bytes: small }, 'warm'));

    // Many small files, a few clients.
    let memory = watchMemory(cairn.pid);
    const many = await concurrently(options.smallFiles, options.clients, (i) => send(i, { bytes: small }, 'small'));
    const manyMemory = memory.stop();
    const manyMbps = (options.smallFiles * small.length) / mebibyte / many.seconds;
    const manyLoad = load();

    // The bare limit, same bytes, same concurrency.
    let limitMbps: number;
    let limitLabel: string;
    if (target.kind === 'fs') {
      await rm(limitDir, { recursive: true, force: true });
      await mkdir(limitDir, { recursive: true });
      const limit = await concurrently(options.smallFiles, options.clients, (i) => writeFile(path.join(limitDir, `small-${i}`), small));
      limitMbps = (options.smallFiles * small.length) / mebibyte / limit.seconds;
      limitLabel = `writeFile of the same bytes, ${options.clients} at a time`;
      await rm(limitDir, { recursive: true, force: true });
    } else {
      const s3c = client as S3Client;
      const limit = await concurrently(options.smallFiles, options.clients, (i) => s3c.send(new PutObjectCommand({ Bucket: bucket, Key: `bench-limit/small-${i}`, Body: small, ContentType: 'application/octet-stream' })));
      limitMbps = (options.smallFiles * small.length) / mebibyte / limit.seconds;
      limitLabel = `PutObject (AWS SDK) of the same bytes, ${options.clients} at a time`;
    }
    let sinkMbps: number | null = null;
    if (sink) {
      const bare = sink;
      await concurrently(options.clients * 2, options.clients, (i) => uploadContent(bare.endpoint, '', asset, target.repositoryId, `warm-${i}.bin`, 'application/octet-stream', { bytes: small }));
      const viaSink = await concurrently(options.smallFiles, options.clients, (i) => uploadContent(bare.endpoint, '', asset, target.repositoryId, `small-${i}.bin`, 'application/octet-stream', { bytes: small }));
      sinkMbps = (options.smallFiles * small.length) / mebibyte / viaSink.seconds;
    }
    const lat = spread(many.latencies);
    targetRows.push([target.kind, `${options.smallFiles} × ${num(options.smallMb)} MB, ${options.clients} clients`, many.seconds.toFixed(2), manyMbps, lat.p50, lat.p99, manyMemory.beforeMb, manyMemory.peakMb, manyMemory.hwmMb, limitMbps, ratio(manyMbps, limitMbps), sinkMbps, ratio(manyMbps, sinkMbps), manyLoad, limitLabel]);
    console.log(`  ${target.kind}: ${options.smallFiles} × ${num(options.smallMb)} MB: ${num(manyMbps)} MB/s (limit ${num(limitMbps)}), RSS ${num(manyMemory.beforeMb)} → peak ${num(manyMemory.peakMb)} MB, load ${manyLoad}`);

    // One large file, streamed from disk; best of a few runs.
    const runs: { mbps: number; memory: Memory; load: string }[] = [];
    for (let run = 0; run < options.largeRuns; run += 1) {
      memory = watchMemory(cairn.pid);
      started = performance.now();
      const record = await send(run, { file: largeFile, size: largeBytes }, 'large');
      const took = seconds(started);
      const used = memory.stop();
      if (record.size !== largeBytes) throw new Error(`the large upload stored ${record.size} bytes, not ${largeBytes}`);
      runs.push({ mbps: options.largeMb / took, memory: used, load: load() });
      console.log(`  ${target.kind}: ${num(options.largeMb)} MB run ${run + 1}: ${took.toFixed(2)} s, ${num(options.largeMb / took)} MB/s, RSS ${num(used.beforeMb)} → peak ${num(used.peakMb)} MB (VmHWM ${num(used.hwmMb)}), load ${load()}`);
    }
    const largeLimits: number[] = [];
    let largeLimitLabel: string;
    let secondLimit: number | null = null;
    for (let run = 0; run < options.largeRuns; run += 1) {
      started = performance.now();
      if (target.kind === 'fs') {
        await mkdir(limitDir, { recursive: true });
        await pipeline(createReadStream(largeFile, { highWaterMark: mebibyte }), createWriteStream(path.join(limitDir, `large-${run}`)));
        largeLimits.push(options.largeMb / seconds(started));
        await rm(limitDir, { recursive: true, force: true });
      } else {
        const s3c = client as S3Client;
        await s3c.send(new PutObjectCommand({ Bucket: bucket, Key: `bench-limit/large-${run}`, Body: createReadStream(largeFile, { highWaterMark: mebibyte }), ContentLength: largeBytes }));
        largeLimits.push(options.largeMb / seconds(started));
      }
    }
    if (target.kind === 's3') {
      // What the service's store does: lib-storage's multipart Upload, 8 MiB parts, 4 in flight.
      started = performance.now();
      await new Upload({ client: client as S3Client, params: { Bucket: bucket, Key: 'bench-limit/large-multipart', Body: createReadStream(largeFile, { highWaterMark: mebibyte }) }, partSize: 8 * mebibyte, queueSize: 4 }).done();
      secondLimit = options.largeMb / seconds(started);
      console.log(`  s3: ${num(options.largeMb)} MB by lib-storage Upload (8 MiB parts × 4, the service's settings) from this process: ${num(secondLimit)} MB/s`);
    }
    let largeSink: number | null = null;
    if (sink) {
      for (let run = 0; run < options.largeRuns; run += 1) {
        started = performance.now();
        await uploadContent(sink.endpoint, '', asset, target.repositoryId, `large-${run}.bin`, 'application/octet-stream', { file: largeFile, size: largeBytes });
        largeSink = Math.max(largeSink ?? 0, options.largeMb / seconds(started));
      }
    }
    largeLimitLabel = target.kind === 'fs' ? 'read the file + write a copy (Node streams, as cp)' : 'one PutObject (AWS SDK) streaming the file';
    if (secondLimit !== null) largeLimitLabel += `; multipart Upload as the service: ${num(secondLimit)} MB/s`;
    const best = runs.reduce((a, b) => (b.mbps > a.mbps ? b : a));
    const largeLimit = Math.max(...largeLimits);
    const peak = Math.max(...runs.map((r) => r.memory.peakMb));
    const hwm = Math.max(...runs.map((r) => r.memory.hwmMb));
    targetRows.push([target.kind, `1 × ${num(options.largeMb)} MB (best of ${options.largeRuns})`, (options.largeMb / best.mbps).toFixed(2), best.mbps, null, null, runs[0]?.memory.beforeMb, peak, hwm, largeLimit, ratio(best.mbps, largeLimit), largeSink, ratio(best.mbps, largeSink), best.load, largeLimitLabel]);
    return targetRows;
  }
  printTable(
    `Uploads: POST /api/assets/{id}/content/ multipart, streamed from this process (extraction off); the service's resident memory over each step (before, sampled peak of VmRSS, VmHWM after a reset); limit = the same bytes without the service`,
    ['target', 'upload', 's', 'MB/s', 'p50 ms', 'p99 ms', 'RSS before MB', 'RSS peak MB', 'VmHWM MB', 'limit MB/s', 'ratio', 'Node sink MB/s', 'ratio', 'load 1m 5m 15m', 'limit'],
    rows,
  );
  console.log(
    `(1 MB = 2^20 bytes; sha256 of the file alone in this process: ${num(hashMbps)} MB/s. Node sink: the same uploads, same client, to a bare node:http server in a child process that parses them with busboy, hashes and writes each to a file: no auth, SQL or events)`,
  );
}

// ---------------------------------------------------------------------------------------
// Extraction

function smallSample(i: number): { name: string; type: string; bytes: Buffer } {
  if (i % 2 === 0) {
    const rows = ['station,depth_m,temperature_c,salinity_psu,sampled_at'];
    for (let r = 0; r < 40 + (i % 13); r += 1) rows.push(`ST-${i}-${r},${(r * 2.5).toFixed(1)},${(4 + ((r * 7) % 11) / 3).toFixed(2)},${(34 + (r % 5) / 10).toFixed(2)},2026-0${1 + (r % 9)}-1${r % 10}T0${r % 10}:00:00Z`);
    return { name: `cast-${i}.csv`, type: 'text/csv', bytes: Buffer.from(`${rows.join('\n')}\n`) };
  }
  const lines: string[] = [];
  for (let r = 0; r < 30 + (i % 17); r += 1) lines.push(`Log line ${r} of note ${i}: the sampler was cleaned and the cast repeated at station ${r % 7}.`);
  return { name: `note-${i}.txt`, type: 'text/plain', bytes: Buffer.from(`${lines.join('\n')}\n`) };
}

async function extraction(cairn: CairnProcess, setup: Setup, options: Options): Promise<void> {
  await grant(cairn, setup, setup.repositories.fs);
  const asset = await createAsset(cairn, setup, 'Extraction');
  const samples = Array.from({ length: options.extractions }, (_, i) => smallSample(i));
  const sampleDir = path.join(setup.work, 'extraction-samples');
  await mkdir(sampleDir, { recursive: true });
  for (const s of samples) await writeFile(path.join(sampleDir, s.name), s.bytes);
  const totalKb = samples.reduce((n, s) => n + s.bytes.length, 0) / 1024;

  const memory = watchMemory(cairn.pid);
  const started = performance.now();
  const sent = await concurrently(samples.length, options.clients, (i) => {
    const s = samples[i] as (typeof samples)[number];
    return uploadContent(cairn.url, setup.ownerToken, asset, setup.repositories.fs, s.name, s.type, { bytes: s.bytes });
  });
  let records: ContentRecord[];
  for (;;) {
    records = await api<ContentRecord[]>(cairn.url, setup.ownerToken, 'GET', `/api/assets/${asset}/content/`);
    if (records.length >= samples.length && records.every((r) => r.metadata_status !== 'pending')) break;
    if (seconds(started) > 900) throw new Error('extraction did not finish within 15 minutes');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const took = seconds(started);
  const used = memory.stop();
  const serviceLoad = load();
  const succeeded = records.filter((r) => r.metadata_status === 'succeeded').length;
  const failed = records.filter((r) => r.metadata_status === 'failed');
  const firstCreated = Math.min(...records.map((r) => Date.parse(r.created_at)));
  const lastStarted = Math.max(...records.map((r) => Date.parse(r.metadata_extracted_at ?? r.created_at)));
  console.log(
    `  service: ${samples.length} uploads (${num(totalKb)} KB) in ${sent.seconds.toFixed(2)} s, every record extracted ${took.toFixed(2)} s after the first upload started; ${succeeded} succeeded, ${failed.length} failed${failed[0] ? ` (${failed[0].metadata_error})` : ''}; first record created → last extraction started (metadata_extracted_at) ${((lastStarted - firstCreated) / 1000).toFixed(2)} s; RSS ${num(used.beforeMb)} → peak ${num(used.peakMb)} MB, load ${serviceLoad}`,
  );

  // The direct calls on the first 100 files at most: a rate, and ~0.25 s each.
  const directCount = Math.min(samples.length, 100);
  const direct = async (concurrency: number) => {
    let ok = 0;
    const run = await concurrently(directCount, concurrency, async (i) => {
      const s = samples[i] as (typeof samples)[number];
      const result = await extractMetadata(path.join(sampleDir, s.name), { filename: s.name, declaredContentType: s.type }, extractionLimits);
      if (result.status === 'succeeded') ok += 1;
    });
    const latency = spread(run.latencies);
    console.log(`  extractMetadata directly, ${concurrency} at a time: ${directCount} in ${run.seconds.toFixed(2)} s (${num(directCount / run.seconds)}/s), ${ok} succeeded, p50 ${num(latency.p50)} ms, load ${load()}`);
    return { perSecond: directCount / run.seconds, p50: latency.p50 };
  };
  const sequential = await direct(1);
  const paired = await direct(2);
  const rate = samples.length / took;
  printTable(
    `Metadata extraction: ${samples.length} small CSV and text uploads (${num(totalKb / samples.length)} KB each) to fs, from the first upload until no record is pending (in-process outbox runner, 2 loops); limit = extractMetadata (workers/src/extraction) called directly on the same files (the first ${directCount})`,
    ['what', 'jobs', 's', 'jobs/s', 'limit: direct, sequential /s', 'ratio', 'direct, 2 at a time /s', 'ratio', 'RSS before MB', 'RSS peak MB', 'load 1m 5m 15m'],
    [['extraction jobs after upload', samples.length, took.toFixed(2), rate, sequential.perSecond, ratio(rate, sequential.perSecond), paired.perSecond, ratio(rate, paired.perSecond), used.beforeMb, used.peakMb, serviceLoad]],
  );
  console.log(`(one direct call, p50: ${num(sequential.p50)} ms sequential, ${num(paired.p50)} ms two at a time)`);
}

// ---------------------------------------------------------------------------------------
// Migration

async function migration(cairn: CairnProcess, setup: Setup, options: Options): Promise<void> {
  await grant(cairn, setup, setup.repositories.fs);
  await grant(cairn, setup, setup.repositories.archive);
  const asset = await createAsset(cairn, setup, 'Migration');
  const objectBytes = Math.round(options.objectKb * 1024);
  const sent = await concurrently(options.objects, options.clients, (i) => uploadContent(cairn.url, setup.ownerToken, asset, setup.repositories.fs, `object-${i}.bin`, 'application/octet-stream', { bytes: randomBytes(objectBytes) }));
  console.log(`  seeded ${options.objects} objects of ${num(options.objectKb)} KB by upload in ${sent.seconds.toFixed(2)} s (${num(options.objects / sent.seconds)} uploads/s, ${options.clients} clients, p50 ${num(spread(sent.latencies).p50)} ms)`);
  const records = await api<ContentRecord[]>(cairn.url, setup.ownerToken, 'GET', `/api/assets/${asset}/content/`);
  if (records.length !== options.objects) throw new Error(`${records.length} records, not ${options.objects}`);

  // The bare limits first (the migration removes the source files): copyFile of each object,
  // one after the other as the worker goes; and the worker's own steps without the service
  // (hash the target if present, stream copy with SHA-256, re-read and hash the target, remove the source copy).
  const files = records.map((r) => path.join(setup.dirs.fs, ...r.key.split('/')));
  const copyDir = path.join(setup.work, 'limit-copies');
  await mkdir(copyDir, { recursive: true });
  let started = performance.now();
  for (const [i, file] of files.entries()) await copyFile(file, path.join(copyDir, `copy-${i}`));
  const copySeconds = seconds(started);
  await rm(copyDir, { recursive: true, force: true });
  await mkdir(copyDir, { recursive: true });
  const hashOf = async (file: string) => {
    const h = createHash('sha256');
    try {
      await pipeline(createReadStream(file), async function (source) {
        for await (const chunk of source) h.update(chunk as Buffer);
      });
    } catch {
      return null;
    }
    return h.digest('hex');
  };
  started = performance.now();
  for (const [i, file] of files.entries()) {
    const target = path.join(copyDir, `verified-${i}`);
    await hashOf(target);
    const h = createHash('sha256');
    await pipeline(
      createReadStream(file),
      async function* (source) {
        for await (const chunk of source) {
          h.update(chunk as Buffer);
          yield chunk as Buffer;
        }
      },
      createWriteStream(target, { flags: 'wx' }),
    );
    if (h.digest('hex') !== (await hashOf(target))) throw new Error('copy mismatch');
  }
  const verifiedSeconds = seconds(started);
  await rm(copyDir, { recursive: true, force: true });
  console.log(`  limits: copyFile ${options.objects} objects ${copySeconds.toFixed(2)} s; copy with the worker's checks (hash target, hash while copying, hash again) ${verifiedSeconds.toFixed(2)} s`);

  const memory = watchMemory(cairn.pid);
  started = performance.now();
  const start = await api<{ id: string; status: string }>(cairn.url, setup.ownerToken, 'POST', `/api/assets/${asset}/migrations/`, { target_repository_id: setup.repositories.archive });
  type Migration = { id: string; status: string; attempts: number; error: string | null; moved_content: number | null; created_at: string; updated_at: string };
  let final: Migration | undefined;
  for (;;) {
    const list = await api<Migration[]>(cairn.url, setup.ownerToken, 'GET', `/api/assets/${asset}/migrations/`);
    final = list.find((m) => m.id === start.id);
    if (final && (final.status === 'succeeded' || final.status === 'failed')) break;
    if (seconds(started) > 900) throw new Error('the migration did not finish within 15 minutes');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const took = seconds(started);
  const used = memory.stop();
  const migrationLoad = load();
  if (final.status !== 'succeeded') throw new Error(`the migration ${final.status}: ${final.error}`);
  const recordedSeconds = (Date.parse(final.updated_at) - Date.parse(final.created_at)) / 1000;
  console.log(`  migration ${final.status} after ${took.toFixed(2)} s (created_at → updated_at ${recordedSeconds.toFixed(2)} s), ${final.moved_content} objects moved, ${final.attempts} attempt(s); RSS ${num(used.beforeMb)} → peak ${num(used.peakMb)} MB, load ${migrationLoad}`);
  const perSecond = options.objects / took;
  printTable(
    `Migration fs → fs of one asset with ${options.objects} objects of ${num(options.objectKb)} KB (POST .../migrations/ until \`succeeded\`, in-process outbox runner); limit = fs.copyFile of the same files, one after the other`,
    ['what', 'objects', 's', 'objects/s', 'limit s', 'limit objects/s', 'ratio', "copy + worker's hashing s", 'objects/s', 'ratio', 'load 1m 5m 15m'],
    [['migration', options.objects, took.toFixed(2), perSecond, copySeconds.toFixed(2), options.objects / copySeconds, ratio(perSecond, options.objects / copySeconds), verifiedSeconds.toFixed(2), options.objects / verifiedSeconds, ratio(perSecond, options.objects / verifiedSeconds), migrationLoad]],
  );
}

// ---------------------------------------------------------------------------------------

/**
 * `npm run bench -- storage [--small-files N] [--small-mb M] [--large-mb M] [--large-runs N]
 * [--clients C] [--extractions N] [--objects N] [--object-kb K] [--no-s3]
 * [--only uploads|extraction|migration] [--cpu-prof DIR]`: issue 12's storage figures,
 * against `cairn serve --role all` in a child process on a scratch database, with s3rver in
 * another child process. Uploads of many 1 MB files (C clients) and of one 200 MB file to an
 * fs and an s3 repository, with the service's resident memory; extraction jobs per second on
 * small CSV and text files; a migration of one asset with 1,000 small objects fs → fs. Each
 * beside its bare limit: the same bytes written to disk or PUT to s3rver with the AWS SDK,
 * extractMetadata called directly, fs.copyFile of the same objects.
 */
export async function storageBenchmark(scale: number): Promise<void> {
  const options = parseOptions(process.argv.slice(3), scale);
  const commit = (() => {
    try {
      return execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
    } catch {
      return '?';
    }
  })();
  console.log(
    `\n=== storage: ${options.smallFiles} × ${num(options.smallMb)} MB and ${options.largeRuns} × ${num(options.largeMb)} MB uploads, ${options.clients} clients, ${options.extractions} extractions, migration of ${options.objects} × ${num(options.objectKb)} KB; commit ${commit}, ${new Date().toISOString()}, load ${load()}`,
  );
  const work = await mkdtemp(path.join(tmpdir(), 'cairn-bench-storage-'));
  const wanted = (part: NonNullable<Options['only']>) => options.only === null || options.only === part;
  let s3: ChildServer | null = null;
  try {
    if (options.s3 && wanted('uploads')) s3 = await startS3rver(path.join(work, 's3rver'));
    await withScratchDatabase('storage', async (url) => {
      const setup = await prepare(url, work, s3);
      if (wanted('uploads') || wanted('migration')) {
        // Extraction off: each upload would otherwise queue a job that competes for the two cores.
        const cairn = await startService(setup, false, options.cpuProf);
        try {
          if (wanted('uploads')) await uploads(cairn, setup, s3, options);
          if (wanted('migration')) await migration(cairn, setup, options);
        } finally {
          await cairn.stop();
        }
      }
      if (wanted('extraction')) {
        const cairn = await startService(setup, true, options.cpuProf);
        try {
          await extraction(cairn, setup, options);
        } finally {
          await cairn.stop();
        }
      }
    });
  } finally {
    agent.destroy();
    await s3?.stop();
    await rm(work, { recursive: true, force: true });
  }
  console.log(`machine at end: load ${load()}`);
}
