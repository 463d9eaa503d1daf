import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { openResources, tokensIssue } from '@cairn/cli';
import { createLogger, createPool, loadConfig } from '@cairn/platform';
import type pg from 'pg';
import { callerEmail, withAssetDatabase } from './asset-seed.ts';
import { benchPublicUrl, startCairn } from './cairn-process.ts';
import { closedLoop } from './closed-loop.ts';
import { ensureCollectionTemplate, observerEmail } from './collections-seed.ts';
import { keepAliveClient } from './keep-alive-client.ts';
import { leanHttpClient } from './lean-http-client.ts';
import { servicePoolSize } from './limits.ts';
import { mixedSession, shapeNames, type Caller, type MixedData, type MixedRequest, type MixedSession } from './mixed-requests.ts';
import { runWriter, type WriterResult } from './mixed-writer.ts';
import { hitRate, readCacheLookups } from './ops-metrics.ts';
import { captureStatements, replay, type Statement } from './request-sql.ts';
import { commitOf, load, uptime, withOutputKept } from './run-output.ts';
import { spread } from './stats.ts';
import { printTable, ratio, type Cell } from './table.ts';
import { withTracedServices } from './traced-services.ts';
import { countArgument } from './cli-arguments.ts';

type Options = { assets: number; collections: number; seconds: number | null; clients: number; bareClients: number; writeRate: number; sample: number; dumpSql: string | null; cpuProf: string | null };

function parseOptions(args: readonly string[]): Options {
  const options: Options = { assets: 1_000_000, collections: -1, seconds: null, clients: 16, bareClients: servicePoolSize, writeRate: 20, sample: 480, dumpSql: null, cpuProf: null };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    const value = () => countArgument(args, (i += 1), arg);
    if (arg === '--assets') options.assets = value();
    else if (arg === '--collections') options.collections = value();
    else if (arg === '--seconds') options.seconds = value();
    else if (arg === '--clients') options.clients = value();
    else if (arg === '--bare-clients') options.bareClients = value();
    else if (arg === '--cpu-prof') options.cpuProf = path.resolve(args[++i] ?? '.');
    else if (arg === '--write-rate') options.writeRate = value();
    else if (arg === '--sample') options.sample = value();
    else if (arg === '--dump-sql') {
      i += 1;
      options.dumpSql = args[i] ?? null;
    }
    else throw new Error(`unknown option ${arg}; options: --assets N, --collections N, --seconds S, --clients C, --bare-clients B, --write-rate W, --sample N, --dump-sql FILE, --cpu-prof DIR`);
  }
  if (options.collections < 0) options.collections = options.assets === 1_000_000 ? 10_000 : Math.max(100, Math.round(options.assets / 100));
  return options;
}

/** Callers of different visibility: the bench caller (every asset, 10 % starred), the observer (through collection grants only), owners in each organization (public assets, their own, their grants). */
const callerEmails = [callerEmail, observerEmail, ...Array.from({ length: 6 }, (_, i) => `owner${i}@bench.example`)];

/** Per shape: the latencies of one phase. */
type Tally = Map<string, { latencies: number[]; errors: number; lastError: string | null }>;

const tallyOf = (): Tally => new Map(shapeNames.map((s) => [s, { latencies: [], errors: 0, lastError: null }]));

/**
 * `npm run bench -- mixed [--assets N] [--collections N] [--seconds S] [--clients C]
 * [--bare-clients B] [--write-rate W] [--sample N]`: many callers of different visibility,
 * every listing shape and the query in a mix (mixed-requests.ts), against `cairn serve`
 * with its read cache on as by default; once with nothing committing, once with a writer
 * creating and changing assets at W/s. Beside it, the bare SQL of a sample of the same mix
 * (the statements the service sends when it misses, captured and replayed by B `pg`
 * clients, the service's main pool by default: on two cores, 16 clients replayed the mix at
 * about half the rate 2 or 4 did, 104–146 against 238–355 requests/s, so a limit measured
 * with as many clients as the HTTP phases was no limit).
 */
export async function mixedBenchmark(scale: number): Promise<void> {
  const options = parseOptions(process.argv.slice(3));
  const seconds = options.seconds ?? Math.max(5, Math.round(20 * scale));
  await withOutputKept('mixed', async () => {
    console.log(`\n=== mixed: ${options.assets.toLocaleString('en-US')} assets in ${options.collections.toLocaleString('en-US')} collections, ${options.clients} clients, ${seconds} s per phase, writer ${options.writeRate}/s, commit ${commitOf()}, ${new Date().toISOString()}`);
    console.log(`machine at start: ${uptime()}`);
    const template = await ensureCollectionTemplate({ assets: options.assets, collections: options.collections }, { reseed: false }, (line) => console.log(line));
    await withAssetDatabase(template.name, (url) => measure(url, options, seconds));
    console.log(`machine at end: ${uptime()}`);
  });
}

async function tokensFor(url: string, emails: readonly string[]): Promise<string[]> {
  const resources = await openResources(loadConfig({ DATABASE_URL: url, CAIRN_LOG_LEVEL: 'silent', CAIRN_PUBLIC_URL: benchPublicUrl }), { logger: createLogger('silent'), queryTimeout: false });
  try {
    const tokens: string[] = [];
    for (const email of emails) tokens.push((await tokensIssue(resources, ['--user', email, '--ttl', '86400'])).access_token);
    return tokens;
  } finally {
    await resources.close();
  }
}

async function measure(url: string, options: Options, seconds: number): Promise<void> {
  const pool = createPool(url, Math.max(options.clients, options.bareClients)); // the service's session settings (no JIT)
  try {
    const users = await pool.query<{ id: string; email: string }>('select id, email from users where email = any($1::text[])', [callerEmails]);
    const tokens = await tokensFor(url, callerEmails);
    const callers: Caller[] = callerEmails.map((email, i) => ({ label: email.split('@')[0] ?? email, id: users.rows.find((u) => u.email === email)?.id ?? '', token: tokens[i] ?? '' }));
    for (const c of callers) {
      const seen = await pool.query<{ n: number }>('select count(*)::int as n from assets a where a.readers && cairn_principals($1::uuid)', [c.id]);
      console.log(`caller ${c.label}: reads ${seen.rows[0]?.n.toLocaleString('en-US')} assets without collection grants (plus those its collections give)`);
    }
    // Owners in the seed's order, so that skewed draws favour the large owners as the seed did.
    const owners = (await pool.query<{ id: string }>("select id from users where email like 'owner%@bench.example' order by substring(email from 6 for position('@' in email) - 6)::int")).rows.map((r) => r.id);
    const collections = (await pool.query<{ id: string }>('select id from collections order by md5(id::text) limit 400')).rows.map((r) => r.id);
    const data: MixedData = { owners, collections };
    const sessions = (seed: number) => Array.from({ length: options.clients }, (_, i) => mixedSession(callers[i % callers.length] as Caller, data, seed * 1000 + i));

    const bare = await bareSqlOfTheMix(url, pool, sessions(1), options, seconds);

    const opsPort = 19_600 + Math.floor(Math.random() * 300);
    // `--cpu-prof DIR`: the service's CPU profile of the whole run, written when it stops.
    const profile = options.cpuProf ? { NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --cpu-prof --cpu-prof-dir=${options.cpuProf}`.trim() } : {};
    const cairn = await startCairn('all', url, 19_000 + Math.floor(Math.random() * 400), { CAIRN_OPS_PORT: String(opsPort), ...profile });
    const opsUrl = `http://127.0.0.1:${opsPort}`;
    // The writer's few requests through Node's client (it reads the ids it created); the reads through the lean one.
    const http = keepAliveClient(cairn.url, 8);
    const lean = leanHttpClient(cairn.url, options.clients);
    try {
      const phases: { name: string; tally: Tally; perSecond: number; p50: number; p99: number; hits: number; writer: WriterResult | null }[] = [];
      for (const [name, rate] of [['no writes', 0], [`writer at ${options.writeRate}/s`, options.writeRate]] as const) {
        const clients = sessions(phases.length + 2);
        await readLoop(lean, clients, Math.min(3, seconds), tallyOf()); // warm up: connections, plans, the cursor key
        const before = await readCacheLookups(opsUrl);
        const tally = tallyOf();
        const writer = rate > 0 ? runWriter(http, callers[2]?.token ?? '', rate, seconds) : null;
        const loop = await readLoop(lean, clients, seconds, tally);
        const after = await readCacheLookups(opsUrl);
        phases.push({ name, tally, perSecond: loop.perSecond, p50: loop.p50Ms, p99: loop.p99Ms, hits: hitRate(before, after), writer: writer ? await writer : null });
        console.log(`  ${name}: ${loop.perSecond.toFixed(1)} reads/s, load ${load()}`);
      }
      report(phases, bare, seconds, options);
      reportAlone(bare.alone);
    } finally {
      http.close();
      lean.close();
      await cairn.stop();
    }
  } finally {
    await pool.end();
  }
}

async function readLoop(http: ReturnType<typeof leanHttpClient>, clients: readonly MixedSession[], seconds: number, tally: Tally) {
  return closedLoop(clients.length, seconds, async (worker) => {
    const session = clients[worker] as MixedSession;
    const request = session.next();
    const at = performance.now();
    const reply = await http.request(request.method, request.path, { authorization: `Bearer ${session.caller.token}`, 'content-type': 'application/json' }, request.body, { keepBody: session.wantsBody() });
    const entry = tally.get(request.shape);
    if (reply.status !== 200) {
      if (entry) {
        entry.errors += 1;
        entry.lastError = `${request.method} ${request.path}: ${reply.status} ${(reply.body ?? '').slice(0, 160)}`;
      }
      throw new Error(`${request.shape}: ${reply.status}`);
    }
    entry?.latencies.push(performance.now() - at);
    session.record(request, reply);
  });
}

type Bare = { tally: Tally; perSecond: number; p50: number; p99: number; requests: number; alone: Alone };

/** Each captured request replayed alone (one client, the second of two passes): where the mix's SQL time goes, shape by shape. */
type Alone = { byShape: Map<string, number[]>; slowest: { shape: string; path: string; ms: number; statements: number[] }[] };

/**
 * The bare-SQL limit of the mix: `sample` requests drawn as the HTTP clients draw them (the
 * sessions follow their own cursors), sent once to the services in this process (no read
 * cache) with every statement traced, after as many that warm what the process keeps, then replayed round robin by as many `pg` clients for
 * the same time. Each replayed request is a miss: this is what the mix costs when nothing is
 * kept, with no HTTP, JSON or token check.
 */
async function bareSqlOfTheMix(url: string, pool: pg.Pool, clients: readonly MixedSession[], options: Options, seconds: number): Promise<Bare> {
  const captured = await withTracedServices(url, async ({ reads, trace }) => {
    const out: { request: MixedRequest; statements: Statement[] }[] = [];
    // As many requests first, not captured: the loaded service has long kept what a process
    // keeps between requests (the collections' facts of its pages, held-facts-cache.ts), and
    // a fresh one would send what only its first pages send.
    for (let i = 0; i < options.sample; i += 1) {
      const session = clients[i % clients.length] as MixedSession;
      const request = session.next();
      const reply = await reads.request(request.method, request.path, { authorization: `Bearer ${session.caller.token}`, 'content-type': 'application/json' }, request.body);
      if (reply.status === 200) session.record(request, reply);
    }
    for (let i = 0; i < options.sample; i += 1) {
      const session = clients[i % clients.length] as MixedSession;
      const request = session.next();
      const { reply, statements } = await captureStatements(trace, () => reads.request(request.method, request.path, { authorization: `Bearer ${session.caller.token}`, 'content-type': 'application/json' }, request.body));
      if (reply.status !== 200) throw new Error(`${request.shape} ${request.method} ${request.path}: ${reply.status} ${reply.body.slice(0, 200)}`);
      session.record(request, reply);
      out.push({ request, statements });
    }
    return out;
  });
  // Each captured request with its statements, to time them one by one (`--dump-sql FILE`).
  if (options.dumpSql) writeFileSync(options.dumpSql, JSON.stringify(captured.map((c) => ({ shape: c.request.shape, path: c.request.path, body: c.request.body ?? null, statements: c.statements })), null, 1));
  const tally = tallyOf();
  let next = 0;
  const loop = await closedLoop(options.bareClients, seconds, async () => {
    const item = captured[next % captured.length];
    next += 1;
    if (!item) return;
    const at = performance.now();
    await replay(pool, item.statements);
    tally.get(item.request.shape)?.latencies.push(performance.now() - at);
  });
  console.log(`bare SQL of the mix: ${captured.length} requests captured, replayed ${loop.ops.toLocaleString('en-US')} times (${loop.errors} errors${loop.lastError ? `, last: ${loop.lastError}` : ''})`);
  return { tally, perSecond: loop.perSecond, p50: loop.p50Ms, p99: loop.p99Ms, requests: captured.length, alone: await eachAlone(pool, captured) };
}

async function eachAlone(pool: pg.Pool, captured: readonly { request: MixedRequest; statements: Statement[] }[]): Promise<Alone> {
  const byShape = new Map<string, number[]>();
  const timed: Alone['slowest'] = [];
  for (let pass = 0; pass < 2; pass += 1) {
    for (const { request, statements } of captured) {
      const perStatement: number[] = [];
      const at = performance.now();
      for (const statement of statements) {
        const started = performance.now();
        await replay(pool, [statement]);
        perStatement.push(performance.now() - started);
      }
      if (pass === 0) continue;
      const ms = performance.now() - at;
      byShape.set(request.shape, [...(byShape.get(request.shape) ?? []), ms]);
      timed.push({ shape: request.shape, path: request.path, ms, statements: perStatement });
    }
  }
  return { byShape, slowest: timed.sort((a, b) => b.ms - a.ms).slice(0, 10) };
}

function reportAlone(alone: Alone): void {
  const total = [...alone.byShape.values()].flat().reduce((n, ms) => n + ms, 0);
  const count = [...alone.byShape.values()].reduce((n, list) => n + list.length, 0);
  const rows: Cell[][] = [...alone.byShape]
    .map(([shape, list]) => ({ shape, list, sum: list.reduce((n, ms) => n + ms, 0) }))
    .sort((a, b) => b.sum - a.sum)
    .map(({ shape, list, sum }) => [shape, list.length, sum / list.length, Math.max(...list), `${((100 * sum) / total).toFixed(1)} %`]);
  rows.push(['all', count, total / count, Math.max(...[...alone.byShape.values()].flat()), '100 %']);
  printTable('Each captured request alone (one pg client, warm): where the mix\'s SQL time goes', ['shape', 'requests', 'mean ms', 'max ms', 'share of the time'], rows);
  console.log('slowest alone (ms per statement):');
  for (const s of alone.slowest) console.log(`  ${s.ms.toFixed(1)} ms ${s.shape} ${s.path.slice(0, 90)} [${s.statements.map((ms) => ms.toFixed(1)).join(', ')}]`);
}

function report(phases: readonly { name: string; tally: Tally; perSecond: number; p50: number; p99: number; hits: number; writer: WriterResult | null }[], bare: Bare, seconds: number, options: Options): void {
  const header = ['shape', ...phases.flatMap((p) => [`${p.name}: reads/s`, 'p50 ms', 'p99 ms', 'errors']), 'bare SQL/s', 'p50 ms', 'p99 ms', `ratio (${phases[1]?.name ?? ''} / bare)`];
  const rows: Cell[][] = shapeNames.map((shape) => {
    const b = spread(bare.tally.get(shape)?.latencies ?? []);
    const bareRate = b.count / seconds;
    const cells = phases.flatMap((p) => {
      const t = p.tally.get(shape);
      const s = spread(t?.latencies ?? []);
      return [s.count / seconds, s.p50, s.p99, t?.errors ?? 0];
    });
    const last = spread(phases[phases.length - 1]?.tally.get(shape)?.latencies ?? []).count / seconds;
    return [shape, ...cells, bareRate, b.p50, b.p99, ratio(last, bareRate)];
  });
  const overall = phases.flatMap((p) => [p.perSecond, p.p50, p.p99, [...p.tally.values()].reduce((n, t) => n + t.errors, 0)]);
  rows.push(['overall', ...overall, bare.perSecond, bare.p50, bare.p99, ratio(phases[phases.length - 1]?.perSecond, bare.perSecond)]);
  printTable(`Mixed reads over ${options.assets.toLocaleString('en-US')} assets (${options.clients} keep-alive clients, ${seconds} s per phase, read cache on; bare SQL: ${bare.requests} captured requests of the same mix replayed by ${options.bareClients} pg clients, every one a miss, no writer)`, header, rows);
  printTable(
    'Read cache and writer (targets: ≥1,000 reads/s overall with p99 <100 ms; the writer at its full rate with p99 <200 ms)',
    ['phase', 'cache hits', 'writes asked/s', 'done/s', 'creates', 'changes', 'p50 ms', 'p99 ms', 'errors', 'skipped (64 in flight)', 'reads met', 'writer met'],
    phases.map((p) => [
      p.name,
      Number.isFinite(p.hits) ? `${p.hits.toFixed(1)} %` : '—',
      p.writer?.target,
      p.writer?.perSecond,
      p.writer?.creates,
      p.writer?.changes,
      p.writer?.p50Ms,
      p.writer?.p99Ms,
      p.writer?.errors,
      p.writer?.skipped,
      p.perSecond >= 1000 && p.p99 < 100 ? 'yes' : 'NO',
      p.writer ? (p.writer.perSecond >= 0.95 * p.writer.target && p.writer.p99Ms < 200 ? 'yes' : 'NO') : '',
    ]),
  );
  for (const p of phases) {
    for (const [shape, t] of p.tally) if (t.lastError) console.log(`  ${p.name}, ${shape}: last error ${t.lastError}`);
    if (p.writer?.lastError) console.log(`  ${p.name}, writer: last error ${p.writer.lastError}`);
  }
}
