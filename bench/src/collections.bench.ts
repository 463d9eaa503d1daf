import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { openResources, projectionsVerify, tokensIssue, type Resources } from '@cairn/cli';
import { createLogger, createPool, loadConfig } from '@cairn/platform';
import { viewerCte, type ReadDb } from '@cairn/projections';
import { sql } from 'kysely';
import type pg from 'pg';
import { callerEmail, withAssetDatabase } from './asset-seed.ts';
import { benchPublicUrl, startCairn } from './cairn-process.ts';
import { closedLoop, type LoopResult } from './closed-loop.ts';
import { landmarks, shares } from './collection-forest.ts';
import { ensureCollectionTemplate, observerEmail } from './collections-seed.ts';
import { explainSummary } from './explain-summary.ts';
import { commitOf, load, uptime, withOutputKept } from './run-output.ts';
import { countOf, idOf } from './pool-queries.ts';
import { postmasterOf, withCpu, type CpuShares } from './process-cpu.ts';
import { parseOptions, type Options } from './collections-options.ts';
import { captureMove, measureMoves, planMove, reportMoves, type MoveRound } from './collection-moves.ts';
import { keepAliveClient, type Reply } from './keep-alive-client.ts';
import { leanHttpClient } from './lean-http-client.ts';
import { captureStatements, replay, type Statement } from './request-sql.ts';
import type { SqlTrace } from './sql-trace.ts';
import { num, printTable, ratio, type Cell } from './table.ts';
import { withTracedServices } from './traced-services.ts';

const clients = 16;
const limit = 100;
/** Rounds of every request sent once before the measured loops. */
const warmRounds = 20;
/** A request slower than this alone is 40 times over the target: it is timed alone, not by 16 clients for minutes. */
const slowMs = 2000;

async function aloneMs(op: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await op();
  return performance.now() - started;
}

/** One request's time as a loop's result. */
const single = (ms: number): LoopResult => ({ ops: 1, errors: 0, seconds: ms / 1000, perSecond: 1000 / ms, p50Ms: ms, p99Ms: ms, lastError: null });
const orderings = ['-created_at', 'created_at', '-creator', 'creator', '-title', 'title', '-updated_at', 'updated_at'] as const;
type Ordering = (typeof orderings)[number];

/** The listing's sort keys as projections/src/collections/collection-assets.read.ts writes them into its cursors. */
const sortKeys = {
  created_at: { column: 'ca.created_at', key: `to_char(ca.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` },
  updated_at: { column: 'ca.updated_at', key: `to_char(ca.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` },
  title: { column: 'ca.title', key: 'ca.title' },
  creator: { column: 'ca.creator', key: 'ca.creator::text' },
} as const;

/** One measured request: how to send it over HTTP, and the statements the service sent for it. */
type Case = {
  readonly label: string;
  readonly kind: 'first' | 'deep' | 'other';
  /** The first page this deep page is compared with. */
  readonly firstOf?: string;
  readonly matches: number;
  readonly path: string;
  readonly statements: readonly Statement[];
};

type Send = (path: string) => Promise<Reply>;

/**
 * `npm run bench -- collections [--assets N] [--collections N] [--reseed] [--seconds S]
 * [--page P] [--moves N] [--verify[=NAMES]] [--cache off]`: the collection-assets listing in every ordering
 * (first and deep page of the large collection), a typical collection's first page, the
 * collection listing with and without `q`, each beside the statements the service sent
 * for it sent bare, with EXPLAIN; then moves of a subtree, timed until every read model
 * shows them (collections-seed.ts says what is seeded).
 */
export async function collectionsBenchmark(scale: number): Promise<void> {
  const options = parseOptions(process.argv.slice(3));
  const seconds = options.seconds ?? Math.max(3, Math.round((options.assets >= 1_000_000 ? 10 : 3) * scale));
  await withOutputKept('collections', () => run(options, seconds));
}

async function run(options: Options, seconds: number): Promise<void> {
  const commit = commitOf();
  console.log(`\n=== collections: ${options.assets.toLocaleString('en-US')} assets in ${options.collections.toLocaleString('en-US')} collections, ${clients} clients, ${seconds} s per figure, read cache ${options.cache}, commit ${commit}, ${new Date().toISOString()}`);
  console.log(`machine at start: ${uptime()}`);
  const seedStarted = performance.now();
  const template = await ensureCollectionTemplate({ assets: options.assets, collections: options.collections }, { reseed: options.reseed }, (line) => console.log(line));
  if (template.seeded) console.log(`seeded ${template.name} in ${template.seeded.seconds.toFixed(1)} s; whole step (with the asset template if it was missing) ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
  else console.log(`template ${template.name} exists: seeding skipped (--reseed to make it again)`);
  const copyStarted = performance.now();
  await withAssetDatabase(template.name, async (url) => {
    console.log(`copied the template in ${((performance.now() - copyStarted) / 1000).toFixed(1)} s`);
    await measure(url, options, seconds);
  });
  console.log(`machine at end: ${uptime()}`);
}


async function tokenFor(resources: Resources, email: string): Promise<string> {
  return (await tokensIssue(resources, ['--user', email, '--ttl', '86400'])).access_token;
}

async function measure(url: string, options: Options, seconds: number): Promise<void> {
  const pool = createPool(url, clients + 4); // the service's session settings (no JIT)
  try {
    const sizes = await pool.query<{ name: string; size: string }>(
      `select c.relname as name, pg_size_pretty(pg_total_relation_size(c.oid)) as size from pg_class c
       where c.relname in ('events', 'assets', 'collections', 'collection_permissions') order by c.relname`,
    );
    console.log(`sizes (with indexes): ${sizes.rows.map((r) => `${r.name} ${r.size}`).join(', ')}`);
    const depths = await pool.query<{ depth: number; n: string; granted: string }>(
      'select cardinality(parent_ids) as depth, count(*)::text as n, count(*) filter (where entry_grants <> $1::jsonb)::text as granted from collections group by 1 order by 1',
      ['{}'],
    );
    console.log(`collections by depth (0 = roots): ${depths.rows.map((r) => `${r.depth}: ${Number(r.n).toLocaleString('en-US')} (${r.granted} with entries)`).join(', ')}`);

    const { cases, move, moveCapture } = await withTracedServices(url, async ({ resources, reads, writes, trace }) => {
      const token = await tokenFor(resources, callerEmail);
      const send: Send = (path) => reads.request('GET', path, { authorization: `Bearer ${token}` });
      const caller = await idOf(pool, 'select id from users where email = $1', [callerEmail]);
      const cases = (await prepareCases(pool, resources.db, send, trace, caller, options)).filter((c) => options.only?.test(c.label) ?? true);
      if (options.dumpSql) {
        writeFileSync(options.dumpSql, JSON.stringify(cases.map((c) => ({ label: c.label, statements: c.statements })), null, 1));
        console.log(`captured statements written to ${options.dumpSql}`);
      }
      const move = await planMove(pool, resources);
      return { cases, move, moveCapture: await captureMove(trace, move, writes, await tokenFor(resources, move.ownerEmail)) };
    });

    // `--cache off`: every HTTP figure is a miss; the one bench caller's 16 clients stand for 16 callers (as in the asset bench).
    const cache = options.cache === 'off' ? { CAIRN_READ_CACHE_MB: '0', CAIRN_COSTLY_READS_PER_CALLER: String(clients) } : {};
    const profile = options.cpuProf ? { NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --cpu-prof --cpu-prof-dir=${options.cpuProf}`.trim() } : {};
    const cairn = await startCairn('all', url, 19_000 + Math.floor(Math.random() * 400), { ...cache, ...profile });
    const backend = await pool.query<{ pid: number }>('select pg_backend_pid() as pid');
    const postmaster = postmasterOf(backend.rows[0]?.pid ?? 0);
    const rows: Cell[][] = [];
    const results = new Map<string, LoopResult>();
    let moves: MoveRound[] = [];
    try {
      const tokens = await issueTokens(url, [callerEmail, move.ownerEmail, observerEmail]);
      // The loops through the lean client; the moves, which read their answers, through Node's.
      const lean = leanHttpClient(cairn.url, clients);
      const http = keepAliveClient(cairn.url, 4);
      try {
        const headers = { authorization: `Bearer ${tokens[0] ?? ''}` };
        // Every request a few times before any is measured: the first measured was otherwise the
        // service's first work after it started (code not yet optimized, plans not yet kept).
        for (let round = 0; round < warmRounds; round += 1) await Promise.all(cases.map((c) => lean.request('GET', c.path, headers)));
        for (const c of cases) {
          const httpOp = async () => {
            const reply = await lean.request('GET', c.path, headers);
            if (reply.status !== 200) throw new Error(`GET ${c.path}: ${reply.status} ${(reply.body ?? '').slice(0, 200)}`);
          };
          // One request alone first: one that takes seconds is reported as such, not run by 16 clients for minutes.
          const alone = await aloneMs(httpOp);
          const aloneSql = await aloneMs(() => replay(pool, c.statements));
          const skip = alone > slowMs || aloneSql > slowMs;
          let httpResult: LoopResult;
          let sqlResult: LoopResult;
          let cpu: CpuShares | null = null;
          if (skip) {
            httpResult = single(alone);
            sqlResult = single(aloneSql);
          } else {
            const warm = Math.min(seconds >= 5 ? 2 : 1, seconds);
            await closedLoop(clients, warm, httpOp);
            ({ result: httpResult, cpu } = await withCpu(cairn.pid, postmaster, () => closedLoop(clients, seconds, httpOp)));
            await closedLoop(clients, warm, () => replay(pool, c.statements));
            sqlResult = await closedLoop(clients, seconds, () => replay(pool, c.statements));
          }
          const httpLoad = loadavg()[0] ?? 0;
          results.set(c.label, httpResult);
          const error = httpResult.lastError ?? sqlResult.lastError;
          console.log(
            `  ${c.label}: ${skip ? `one request alone took ${num(alone)} ms (bare SQL ${num(aloneSql)} ms): no ${clients}-client loop` : `${num(httpResult.perSecond)}/s HTTP (p99 ${num(httpResult.p99Ms)} ms), ${num(sqlResult.perSecond)}/s bare SQL`}, load ${load()}${error ? `; last error: ${error}` : ''}`,
          );
          const first = c.firstOf ? results.get(c.firstOf) : undefined;
          const p99 = !skip && httpResult.p99Ms < 50;
          const met = c.kind === 'deep' ? p99 && first !== undefined && httpResult.p50Ms <= 1.25 * first.p50Ms : p99;
          rows.push([
            c.label,
            c.matches,
            skip ? '1 (alone)' : clients,
            httpResult.perSecond,
            httpResult.p50Ms,
            httpResult.p99Ms,
            httpResult.errors + sqlResult.errors,
            c.statements.length,
            sqlResult.perSecond,
            sqlResult.p50Ms,
            sqlResult.p99Ms,
            ratio(httpResult.perSecond, sqlResult.perSecond),
            ...perRequest(cpu, httpResult),
            httpLoad.toFixed(1),
            c.kind === 'deep' ? 'p99 <50 ms, p50 ≤1.25× first' : 'p99 <50 ms',
            met ? 'yes' : 'NO',
          ]);
        }
        moves = await measureMoves(http, move, { owner: tokens[1] ?? '', observer: tokens[2] ?? '' }, options.moves);
      } finally {
        lean.close();
        http.close();
      }
    } finally {
      await cairn.stop();
    }

    printTable(
      `Collections over ${options.assets.toLocaleString('en-US')} assets in ${options.collections.toLocaleString('en-US')} collections (${clients} keep-alive HTTP clients vs ${clients} bare pg clients sending the statements the service sent for the same request, ${seconds} s each; a request that took over ${num(slowMs)} ms alone is shown alone)`,
      ['request', 'matches', 'clients', 'HTTP/s', 'p50 ms', 'p99 ms', 'errors', 'stmts', 'SQL/s', 'SQL p50', 'SQL p99', 'API/SQL', 'svc CPU ms', 'PG CPU ms', 'bench CPU ms', 'load 1m', 'target', 'met'],
      rows,
    );
    await reportMoves(pool, move, moveCapture, moves);

    // Every statement of a request, not only its page's: the caller's facts, the collection's
    // standing and the page's collections are a request's cost too.
    console.log('\nEXPLAIN (ANALYZE, BUFFERS) of each statement of a request, on the seeded data after the runs (warm cache):');
    for (const c of cases) {
      console.log(`\n${c.label} — ${c.statements.length} statement(s)`);
      for (const [i, s] of c.statements.entries()) await printExplain(pool, `  [${i + 1}]`, s);
    }

    if (options.verify.length > 0) await verifyReadModels(url, options.verify);
  } finally {
    await pool.end();
  }
}

/** CPU milliseconds per request of the service, PostgreSQL and the load client over an HTTP loop (process-cpu.ts). */
function perRequest(cpu: CpuShares | null, loop: LoopResult): Cell[] {
  if (cpu === null || loop.ops === 0) return ['', '', ''];
  return [cpu.service, cpu.postgres, cpu.bench].map((seconds) => (seconds === null ? '' : ((seconds * 1000) / loop.ops).toFixed(2)));
}

async function issueTokens(url: string, emails: readonly string[]): Promise<string[]> {
  const resources = await openResources(loadConfig({ DATABASE_URL: url, CAIRN_LOG_LEVEL: 'silent', CAIRN_PUBLIC_URL: benchPublicUrl }), { logger: createLogger('silent'), queryTimeout: false });
  try {
    const tokens: string[] = [];
    for (const email of emails) tokens.push(await tokenFor(resources, email));
    return tokens;
  } finally {
    await resources.close();
  }
}

async function printExplain(pool: pg.Pool, label: string, statement: Statement): Promise<void> {
  try {
    const summary = await explainSummary(pool, statement.text, statement.values);
    console.log(`${label} execution ${summary.executionMs.toFixed(2)} ms, planning ${summary.planningMs.toFixed(2)} ms, buffers hit ${summary.sharedHit} read ${summary.sharedRead}; scans: ${[...new Set(summary.scans)].join(', ')}`);
    for (const line of summary.lines) console.log(`      ${line}`);
  } catch (error) {
    console.log(`${label} EXPLAIN failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The X-Next-Cursor that leads to page `page` of the caller's listing of the collection in
 * `ordering`, worked out in SQL (the key of the last row of the page before, with the
 * service's visibility test) and signed as query-api/src/assets/page-cursor.ts signs keys.
 */
async function deepCursor(db: ReadDb, pool: pg.Pool, caller: string, collection: string, ordering: Ordering, page: number): Promise<string> {
  const descending = ordering.startsWith('-');
  const spec = sortKeys[(descending ? ordering.slice(1) : ordering) as keyof typeof sortKeys];
  const { rows } = await sql<{ k: string; id: string }>`
    with ${viewerCte(caller)}
    select ${sql.raw(spec.key)} as k, a.id from me, collection_assets ca join assets a on a.id = ca.asset_id
    where ca.collection_id = ${collection}::uuid and (a.readers && me.p or a.collection_ids && me.vc)
    order by ${sql.raw(spec.column)} ${sql.raw(descending ? 'desc' : 'asc')}, ca.asset_id ${sql.raw(descending ? 'desc' : 'asc')} offset ${(page - 1) * limit - 1} limit 1`.execute(db);
  const row = rows[0];
  if (!row) throw new Error(`the collection has no page ${page} in ${ordering}`);
  const secret = (await pool.query<{ value: string }>("select value from server_secrets where name = 'cursor_key'")).rows[0]?.value;
  if (!secret) throw new Error('no cursor key yet: list once first');
  const payload = Buffer.from(JSON.stringify(['k', `collection-assets:${ordering}`, row.k, row.id])).toString('base64url');
  const signature = createHmac('sha256', Buffer.from(secret, 'base64url')).update(`v1.${payload}`).digest().subarray(0, 16).toString('base64url');
  return `v1.${payload}.${signature}`;
}

/**
 * The large collection in every ordering (first page; the deep page's cursor worked out in
 * SQL and checked against the service's own walk of the two pages before it), a typical
 * collection at level 5 that the caller may LIST, and the collection listing with and
 * without `q`; each request's statements captured from the service in this process.
 */
async function prepareCases(pool: pg.Pool, db: ReadDb, send: Send, trace: SqlTrace, caller: string, options: Options): Promise<Case[]> {
  const large = await idOf(pool, 'select id from collections where title = $1', [landmarks.large]);
  const visibleIn = async (collection: string) =>
    Number(
      (
        await sql<{ n: string }>`with ${viewerCte(caller)} select count(*)::text as n from me, assets a
          where a.collection_ids @> array[${collection}::uuid] and (a.readers && me.p or a.collection_ids && me.vc)`.execute(db)
      ).rows[0]?.n ?? 0,
    );
  const largeCount = await visibleIn(large);
  const deepest = Math.max(2, Math.min(options.page, Math.floor(largeCount / limit)));
  const facts = (await sql<{ p: string[]; vc: string[] }>`with ${viewerCte(caller)} select me.p, me.vc from me`.execute(db)).rows[0];
  console.log(`caller: ${facts?.p.length ?? 0} principals; reads the assets of ${(facts?.vc.length ?? 0).toLocaleString('en-US')} collections through their entries`);
  console.log(`large collection ${large}: ${largeCount.toLocaleString('en-US')} assets the caller may read (${shares.large * 100} % of all); deep page ${deepest.toLocaleString('en-US')} (asked ${options.page.toLocaleString('en-US')})`);

  // A level-5 collection the caller may LIST, holding about the average number of assets.
  const { rows: typical } = await pool.query<{ id: string; n: string }>(
    `with held as (select c, count(*) as n from assets, unnest(collection_ids) c group by c)
     select k.id, h.n::text from collections k join held h on h.c = k.id
     where cardinality(k.parent_ids) = 5 and cairn_effective_flags(k.owner_grants, cairn_grants_union(k.entry_grants, k.inherited_grants), cairn_principals($1::uuid), false) & 64 = 64
     order by abs(h.n - $2), k.id limit 1`,
    [caller, options.assets / options.collections],
  );

  const captured = async (label: string, kind: Case['kind'], path: string, matches: number, firstOf?: string): Promise<Case> => {
    await send(path); // warm: the cursor key, caches
    const { reply, statements } = await captureStatements(trace, () => send(path));
    if (reply.status !== 200) throw new Error(`${label}: ${reply.status} ${reply.body.slice(0, 200)}`);
    const heads = statements.map((s) => s.name ?? `"${s.text.replace(/\s+/g, ' ').trim().slice(0, 50)}…"`).join('; ');
    console.log(`  ${label}: ${(JSON.parse(reply.body) as unknown[]).length} rows, has more ${String(reply.headers['x-has-more'])}; ${statements.length} statements: ${heads}`);
    return { label, kind, matches, path, statements, ...(firstOf ? { firstOf } : {}) };
  };

  const cases: Case[] = [];
  const listing = (collection: string, ordering: Ordering, cursor?: string) =>
    `/api/collections/${collection}/assets/?limit=${limit}&ordering=${ordering}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
  const probe = await send(listing(large, '-created_at'));
  if (probe.status !== 200) throw new Error(`the large collection's listing answers ${probe.status}: ${probe.body.slice(0, 200)}`);
  console.log('captured statements per request:');
  const wanted = (label: string) => options.only?.test(label) ?? true;
  for (const ordering of orderings) {
    const first = `large, ${ordering}, first page`;
    if (!wanted(first) && !wanted(`large, ${ordering}, page ${deepest.toLocaleString('en-US')}`)) continue;
    cases.push(await captured(first, 'first', listing(large, ordering), largeCount));
    const walkFrom = Math.max(2, deepest - 2);
    let cursor = await deepCursor(db, pool, caller, large, ordering, walkFrom);
    for (let page = walkFrom; page < deepest; page += 1) {
      const reply = await send(listing(large, ordering, cursor));
      const next = reply.headers['x-next-cursor'];
      if (reply.status !== 200 || typeof next !== 'string') throw new Error(`${ordering} page ${page}: ${reply.status}, no X-Next-Cursor`);
      cursor = next;
    }
    const computed = await deepCursor(db, pool, caller, large, ordering, deepest);
    if (computed !== cursor) throw new Error(`${ordering}: the cursor of page ${deepest} worked out in SQL is not the one the service gave`);
    cases.push(await captured(`large, ${ordering}, page ${deepest.toLocaleString('en-US')}`, 'deep', listing(large, ordering, cursor), largeCount, first));
  }
  const small = typical[0];
  if (small) cases.push(await captured(`typical (level 5), -created_at, first page`, 'first', listing(small.id, '-created_at'), Number(small.n)));

  const q = 'frost';
  const visibleCollections = (where: string, values: unknown[] = []) =>
    countOf(pool, `select count(*)::text as n from collections c where c.readers && cairn_principals($1::uuid) ${where}`, [caller, ...values]);
  cases.push(await captured('GET /api/collections/', 'other', `/api/collections/?limit=${limit}`, await visibleCollections('')));
  cases.push(
    await captured(`GET /api/collections/?q=${q}`, 'other', `/api/collections/?limit=${limit}&q=${q}`, await visibleCollections('and (lower(c.title) like $2 or lower(c.alias) like $2)', [`%${q}%`])),
  );
  return cases;
}

/** `cairn projections verify collections assets` (or those named) on the run's copy, after everything above wrote to it. */
async function verifyReadModels(url: string, names: readonly string[]): Promise<void> {
  const resources = await openResources(loadConfig({ DATABASE_URL: url, CAIRN_LOG_LEVEL: 'silent', CAIRN_PUBLIC_URL: benchPublicUrl }), { logger: createLogger('silent'), queryTimeout: false });
  const started = performance.now();
  try {
    const outcome = await projectionsVerify(resources, names);
    console.log(`\ncairn projections verify ${names.join(' ')}: ${outcome.verified.map((v) => `${v.projection} ${v.events.toLocaleString('en-US')} events replayed, ${v.differences} rows differ`).join('; ')} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  } catch (error) {
    console.log(`\ncairn projections verify ${names.join(' ')} FAILED: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await resources.close();
  }
}
