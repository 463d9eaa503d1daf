import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { openResources, tokensIssue } from '@cairn/cli';
import { createLogger, createPool, loadConfig, timeOrderedId } from '@cairn/platform';
import { createReadDb, viewerCte } from '@cairn/projections';
import type pg from 'pg';
import { topics } from './asset-data.ts';
import { deepPageCursor } from './asset-cursor.ts';
import { callerEmail, ensureAssetTemplate, withAssetDatabase, type ReadModelPath } from './asset-seed.ts';
import { benchPublicUrl, startCairn } from './cairn-process.ts';
import { closedLoop, type LoopResult } from './closed-loop.ts';
import { ensureCollectionTemplate, landmarks } from './collections-seed.ts';
import { explainSummary } from './explain-summary.ts';
import { keepAliveClient, type Reply } from './keep-alive-client.ts';
import { captureStatements, createForNewAsset, replay, withValuesReplaced, type Statement } from './request-sql.ts';
import type { installSqlTrace } from './sql-trace.ts';
import { commitOf, load, uptime, withOutputKept } from './run-output.ts';
import { num, printTable, ratio, type Cell } from './table.ts';
import { withTracedServices } from './traced-services.ts';

const clients = 16;

type Options = {
  assets: number;
  reseed: boolean;
  seconds: number | null;
  path: ReadModelPath;
  page: number;
  dumpSql: string | null;
  only: string | null;
  cpuProf: string | null;
  /** `off`: the service runs with CAIRN_READ_CACHE_MB=0, so that every HTTP figure is a miss. */
  cache: 'on' | 'off';
  /** Collections over the same assets (the collections bench's template), so that `collection_id` is measured too; 0: the asset template. */
  collections: number;
};

function parseOptions(args: readonly string[]): Options {
  const options: Options = { assets: 1_000_000, reseed: false, seconds: null, path: 'bulk', page: 10_000, dumpSql: null, only: null, cpuProf: null, cache: 'on', collections: 0 };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    const value = () => {
      i += 1;
      const v = args[i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--reseed') options.reseed = true;
    else if (arg === '--assets') options.assets = Number(value().replace(/_/g, ''));
    else if (arg === '--seconds') options.seconds = Number(value());
    else if (arg === '--page') options.page = Number(value());
    else if (arg === '--dump-sql') options.dumpSql = value();
    else if (arg === '--seed-path') options.path = value() === 'rebuild' ? 'rebuild' : 'bulk';
    else if (arg === '--only') options.only = value();
    else if (arg === '--cpu-prof') options.cpuProf = path.resolve(value());
    else if (arg === '--cache') options.cache = value() === 'off' ? 'off' : 'on';
    else if (arg === '--collections') options.collections = Number(value().replace(/_/g, ''));
    else throw new Error(`unknown option ${arg}; options: --assets N, --reseed, --seconds S, --page P, --seed-path bulk|rebuild, --dump-sql FILE, --only PATTERN, --cpu-prof DIR, --cache on|off, --collections N`);
  }
  if (!Number.isInteger(options.collections) || options.collections < 0) throw new Error('--collections needs a whole number');
  if (!Number.isInteger(options.assets) || options.assets < 1000) throw new Error('--assets needs a whole number of at least 1000');
  return options;
}

/** One measured request: how to send it over HTTP, and the statements the service sent for it. */
type Case = {
  readonly label: string;
  readonly kind: 'listing' | 'deep' | 'filtered' | 'read' | 'create';
  readonly matches: number | null;
  readonly http: (i: number) => { method: string; path: string; body?: string };
  readonly ok: number;
  /** The statements of the i-th bare-SQL operation. */
  readonly sql: (i: number) => Statement[];
  readonly captured: readonly Statement[];
  /** The same statements with the caller's principals as a parameter instead of the `me` CTE (listings only). */
  readonly variant?: readonly Statement[] | null | undefined;
  /** Issue 24's rate for this request when it misses the cache (`--cache off`); null: the first page's rule (deep pages) or none. */
  readonly missTarget: number | null;
};

/** What the service's `me` CTE (viewerCte) holds for the caller, column by column, with the SQL type of each. */
type Viewer = ReadonlyMap<string, { readonly value: unknown; readonly type: string }>;

async function viewerOf(pool: pg.Pool, caller: string): Promise<Viewer> {
  const cte = viewerCte(caller).compile(createReadDb(pool));
  const { rows } = await pool.query<Record<string, unknown>>(`with ${cte.sql} select * from me`, [...cte.parameters]);
  const types: Record<string, string> = { p: 'text[]', vc: 'uuid[]' };
  return new Map(Object.entries(rows[0] ?? {}).map(([column, value]) => [column, { value, type: types[column] ?? 'unknown' }]));
}

/**
 * A listing statement with what the service reads from its materialized `me` CTE (the
 * caller's principals, the collections they read) passed as parameters instead: the
 * planner then knows them when it plans (the readers' statistics), which is what the
 * suggestions in docs/benchmarks.md rest on. Null when the statement uses `me` otherwise.
 */
function withViewerAsParameters(statement: Statement, viewer: Viewer): Statement | null {
  const values = [...statement.values];
  const index = new Map<string, number>();
  let unknown = false;
  const text = statement.text
    .replace(/\bme(?:_\d+)?\.(\w+)\b/g, (_, column: string) => {
      const field = viewer.get(column);
      if (!field || field.type === 'unknown') {
        unknown = true;
        return `me.${column}`;
      }
      if (!index.has(column)) {
        values.push(field.value);
        index.set(column, values.length);
      }
      return `$${index.get(column) ?? 0}::${field.type}`;
    })
    .replace(/\bfrom me, /g, 'from ');
  if (unknown || /\bfrom me\b|\bme\.\w/.test(text)) return null;
  return { text, values };
}

/**
 * `npm run bench -- assets [--assets N] [--reseed] [--seconds S] [--page P]`: the asset
 * listing, query, read and create over 1,000,000 seeded assets (a template database, seeded
 * once), 16 keep-alive HTTP clients against `cairn serve` in a child process, each beside
 * the same statements sent by 16 bare `pg` clients (captured from the service in this
 * process while it answered one such request), and EXPLAIN of every listing statement.
 */
export async function assetsBenchmark(scale: number): Promise<void> {
  const options = parseOptions(process.argv.slice(3));
  const seconds = options.seconds ?? Math.max(3, Math.round(10 * scale));
  await withOutputKept('assets', () => run(options, seconds));
}

async function run(options: Options, seconds: number): Promise<void> {
  const commit = commitOf();
  console.log(`\n=== assets: ${options.assets.toLocaleString('en-US')} assets, ${clients} clients, ${seconds} s per figure, commit ${commit}, ${new Date().toISOString()}`);
  console.log(`machine at start: ${uptime()}`);
  const seedStarted = performance.now();
  const template = await ensureAssetTemplate(options.assets, { reseed: options.reseed, path: options.path }, (line) => console.log(line));
  if (template.seeded) {
    const s = template.seeded;
    console.log(
      `seeded ${template.name}: ${s.events.toLocaleString('en-US')} events in ${s.seconds.toFixed(1)} s (identity ${s.identitySeconds.toFixed(1)} s, assets' events and read model ${s.assetsSeconds.toFixed(1)} s, ${s.path}, ${Math.round(s.events / s.assetsSeconds).toLocaleString('en-US')} events/s); whole step ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`,
    );
  } else console.log(`template ${template.name} exists: seeding skipped (--reseed to make it again)`);
  // With --collections, the collections bench's template over the same assets (made from the asset template once).
  const source =
    options.collections > 0
      ? (await ensureCollectionTemplate({ assets: options.assets, collections: options.collections }, { reseed: false }, (line) => console.log(line))).name
      : template.name;
  console.log(`read cache of the measured service: ${options.cache === 'off' ? 'off (CAIRN_READ_CACHE_MB=0): every HTTP figure is a miss' : 'on, as by default'}; data: ${source}`);

  const copyStarted = performance.now();
  await withAssetDatabase(source, async (url) => {
    console.log(`copied the template in ${((performance.now() - copyStarted) / 1000).toFixed(1)} s`);
    await measure(url, options, seconds);
  });
  console.log(`machine at end: ${uptime()}`);
}

async function measure(url: string, options: Options, seconds: number): Promise<void> {
  const pool = createPool(url, clients); // the service's session settings (no JIT)
  try {
    const sizes = await pool.query<{ name: string; size: string }>(
      `select c.relname as name, pg_size_pretty(pg_total_relation_size(c.oid)) as size from pg_class c
       where c.relname in ('events', 'assets', 'asset_permissions', 'asset_stars') order by c.relname`,
    );
    console.log(`sizes (with indexes): ${sizes.rows.map((r) => `${r.name} ${r.size}`).join(', ')}`);
    const migrations = await pool.query<{ n: string }>('select count(*)::text as n from schema_migrations');
    console.log(`migrations applied to the template: ${migrations.rows[0]?.n ?? '?'} (the service applies newer ones to the copy when it starts)`);

    // The caller's token (bound to the bench issuer, like http.bench.ts) and the services in this process, traced.
    const cases = await withTracedServices(url, async ({ resources, reads, writes, trace }) => {
      const token = (await tokensIssue(resources, ['--user', callerEmail, '--ttl', '86400'])).access_token;
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const caller = (await pool.query<{ id: string }>('select id from users where email = $1', [callerEmail])).rows[0]?.id ?? '';
      console.log(`caller ${caller}: principals ${JSON.stringify((await pool.query<{ p: string[] }>('select cairn_principals($1::uuid) as p', [caller])).rows[0]?.p)}`);
      const captured = await prepareCases(pool, (method, path, body) => (method === 'POST' && path === '/api/assets/' ? writes : reads).request(method, path, headers, body), trace, options);
      if (options.dumpSql) {
        writeFileSync(options.dumpSql, JSON.stringify(captured.map((c) => ({ label: c.label, statements: c.captured, variant: c.variant ?? null })), null, 1));
        console.log(`captured statements written to ${options.dumpSql}`);
      }
      // --only: measure the requests whose label matches that pattern (all are still captured: the cursors need the walk).
      return options.only === null ? captured : captured.filter((c) => new RegExp(options.only ?? '').test(c.label));
    });

    const profile = options.cpuProf ? { NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --cpu-prof --cpu-prof-dir=${options.cpuProf}`.trim() } : {};
    // Cache off, the costly reads (metadata, q, the query) reach the per-caller gate: one
    // caller with 16 clients stands for 16 callers here, so the gate lets all 16 run.
    const cache = options.cache === 'off' ? { CAIRN_READ_CACHE_MB: '0', CAIRN_COSTLY_READS_PER_CALLER: String(clients) } : {};
    const cairn = await startCairn('all', url, 19_000 + Math.floor(Math.random() * 400), { ...profile, ...cache });
    const rows: Cell[][] = [];
    const variants: Cell[][] = [];
    const results = new Map<string, { http: LoopResult; sql: LoopResult }>();
    try {
      const token = await issueToken(url);
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const http = keepAliveClient(cairn.url, clients);
      try {
        for (const c of cases) {
          const httpOp = async (i: number) => {
            const r = c.http(i);
            const reply = await http.request(r.method, r.path, headers, r.body);
            if (reply.status !== c.ok) throw new Error(`${r.method} ${r.path}: ${reply.status} ${reply.body.slice(0, 200)}`);
          };
          let n = 0;
          await closedLoop(clients, Math.min(2, seconds), () => httpOp((n += 1)));
          const httpResult = await closedLoop(clients, seconds, () => httpOp((n += 1)));
          const httpLoad = loadavg()[0] ?? 0;
          let m = 0;
          await closedLoop(clients, Math.min(2, seconds), () => replay(pool, c.sql((m += 1))));
          const sqlResult = await closedLoop(clients, seconds, () => replay(pool, c.sql((m += 1))));
          results.set(c.label, { http: httpResult, sql: sqlResult });
          let variantResult: LoopResult | null = null;
          const variant = c.variant;
          if (variant) variantResult = await closedLoop(clients, seconds, () => replay(pool, variant));
          if (variantResult) variants.push([c.label, sqlResult.perSecond, sqlResult.p50Ms, sqlResult.p99Ms, variantResult.perSecond, variantResult.p50Ms, variantResult.p99Ms, ratio(variantResult.perSecond, sqlResult.perSecond), variantResult.errors]);
          const error = httpResult.lastError ?? sqlResult.lastError ?? variantResult?.lastError;
          console.log(`  ${c.label}: ${num(httpResult.perSecond)}/s HTTP, ${num(sqlResult.perSecond)}/s bare SQL${variantResult ? `, ${num(variantResult.perSecond)}/s viewer as parameters` : ''}, load ${load()}${error ? `; last error: ${error}` : ''}`);
          rows.push([
            c.label,
            c.matches,
            httpResult.perSecond,
            httpResult.p50Ms,
            httpResult.p99Ms,
            httpResult.errors + sqlResult.errors,
            c.captured.length,
            sqlResult.perSecond,
            sqlResult.p50Ms,
            sqlResult.p99Ms,
            ratio(httpResult.perSecond, sqlResult.perSecond),
            httpLoad.toFixed(1),
          ]);
        }
      } finally {
        http.close();
      }
    } finally {
      await cairn.stop();
    }

    const first = results.get(cases[0]?.label ?? '');
    const verdicts = cases.map((c) => verdict(c, results.get(c.label), first?.http, options.cache));
    printTable(
      `Assets over ${options.assets.toLocaleString('en-US')}, read cache ${options.cache} (${clients} keep-alive HTTP clients vs ${clients} bare pg clients sending the statements the service sent for the same request, ${seconds} s each)`,
      ['request', 'matches', 'HTTP/s', 'p50 ms', 'p99 ms', 'errors', 'stmts', 'SQL/s', 'SQL p50', 'SQL p99', 'API/SQL', 'load 1m', 'target', 'met'],
      rows.map((row, i) => [...row, verdicts[i]?.target, verdicts[i]?.met]),
    );

    printTable(
      `The listings' bare SQL as the service sends it, and with what its \`me\` CTE holds (the caller's principals, the collections they read) passed as parameters instead (same statements otherwise; ${clients} pg clients, ${seconds} s each)`,
      ['request', 'SQL/s', 'p50 ms', 'p99 ms', 'param SQL/s', 'p50 ms', 'p99 ms', 'param/service', 'errors'],
      variants,
    );

    console.log('\nEXPLAIN (ANALYZE, BUFFERS) of each listing statement (and the read by id), on the seeded data after the runs (warm cache):');
    for (const c of cases.filter((x) => x.kind !== 'create')) {
      const statements = c.sql(1).filter((s) => /\bassets\b/.test(s.text));
      console.log(`\n${c.label} — ${statements.length} statement(s) on assets per request`);
      for (const [i, s] of statements.entries()) {
        if (i > 0 && statements.length > 2 && i < statements.length - 1) continue;
        await printExplain(pool, `  [${i + 1}]`, s, true);
      }
      const variant = (c.variant ?? []).filter((s) => /\bassets\b/.test(s.text));
      if (!c.variant) console.log('  (no variant with the viewer as parameters: the statement uses `me` in a way the bench does not rewrite)');
      for (const [i, s] of variant.entries()) {
        if (i > 0 && variant.length > 2 && i < variant.length - 1) continue;
        await printExplain(pool, `  [${i + 1}] with the viewer as parameters:`, s, i === 0);
      }
    }
  } finally {
    await pool.end();
  }
}

async function printExplain(pool: pg.Pool, label: string, statement: Statement, tree: boolean): Promise<void> {
  try {
    const summary = await explainSummary(pool, statement.text, statement.values);
    console.log(`${label} execution ${summary.executionMs.toFixed(2)} ms, planning ${summary.planningMs.toFixed(2)} ms, buffers hit ${summary.sharedHit} read ${summary.sharedRead}; scans: ${[...new Set(summary.scans)].join(', ')}`);
    if (tree) for (const line of summary.lines) console.log(`      ${line}`);
  } catch (error) {
    console.log(`${label} EXPLAIN failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function issueToken(url: string): Promise<string> {
  const resources = await openResources(loadConfig({ DATABASE_URL: url, CAIRN_LOG_LEVEL: 'silent', CAIRN_PUBLIC_URL: benchPublicUrl }), { logger: createLogger('silent'), queryTimeout: false });
  try {
    return (await tokensIssue(resources, ['--user', callerEmail, '--ttl', '86400'])).access_token;
  } finally {
    await resources.close();
  }
}

function verdict(c: Case, result: { http: LoopResult; sql: LoopResult } | undefined, first: LoopResult | undefined, cache: Options['cache']): { target: string; met: string } {
  if (!result) return { target: '', met: '' };
  const { http, sql } = result;
  const yes = (ok: boolean) => (ok ? 'yes' : 'NO');
  const p99 = http.p99Ms < 50;
  // Cache off (issue 24): every figure is a miss, with a rate of its own.
  if (cache === 'off') {
    if (c.kind === 'deep') return { target: 'within 20 % of first page, p99 <50 ms', met: yes(first !== undefined && http.perSecond >= 0.8 * first.perSecond && p99) };
    if (c.missTarget === null) return { target: '—', met: '' };
    return { target: `≥${c.missTarget.toLocaleString('en-US')}/s, p99 <50 ms`, met: yes(http.perSecond >= c.missTarget && (c.kind === 'create' || p99)) };
  }
  switch (c.kind) {
    case 'listing':
      return { target: '≥2,000/s, p99 <50 ms', met: yes(http.perSecond >= 2000 && p99) };
    case 'deep':
      return { target: 'within 20 % of first page, p99 <50 ms', met: yes(first !== undefined && http.perSecond >= 0.8 * first.perSecond && p99) };
    case 'filtered':
      return { target: '≥0.5× bare SQL, p99 <50 ms', met: yes(http.perSecond >= 0.5 * sql.perSecond && p99) };
    case 'create':
      return { target: '≥1,000/s', met: yes(http.perSecond >= 1000) };
    case 'read':
      return { target: '—', met: '' };
  }
}

const count = async (pool: pg.Pool, where: string, values: unknown[] = []) =>
  Number((await pool.query<{ n: string }>(`select count(*)::text as n from assets where ${where}`, values)).rows[0]?.n ?? 0);

/** What each statement is, in a few words: its name, or the start of its text. */
const statementHeads = (statements: readonly Statement[]) => statements.map((s) => s.name ?? `"${s.text.replace(/\s+/g, ' ').trim().slice(0, 60)}…"`).join('; ');

type Send = (method: string, path: string, body?: string) => Promise<Reply>;

/** The large collection and one holding about 100 assets, when the data has collections (`--collections`). */
async function collectionsOfInterest(pool: pg.Pool): Promise<{ label: string; id: string; n: number }[]> {
  const has = await pool.query<{ n: number }>('select count(*)::int as n from collection_assets');
  if ((has.rows[0]?.n ?? 0) === 0) return [];
  const large = await pool.query<{ id: string; n: number }>(
    'select k.id, (select count(*)::int from collection_assets c where c.collection_id = k.id) as n from collections k where k.title = $1',
    [landmarks.large],
  );
  const typical = await pool.query<{ id: string; n: number }>('select collection_id as id, count(*)::int as n from collection_assets group by collection_id order by abs(count(*) - 100), collection_id limit 1');
  return [
    ...large.rows.map((r) => ({ label: 'the large collection', ...r })),
    ...typical.rows.map((r) => ({ label: `a collection of ${r.n}`, ...r })),
  ];
}

/**
 * Picks the filters' values on the seeded data, walks the cursor to the deep page, and
 * captures the statements of one request of each kind from the service in this process.
 */
async function prepareCases(pool: pg.Pool, send: Send, trace: ReturnType<typeof installSqlTrace>, options: Options): Promise<Case[]> {
  const total = await count(pool, 'true');
  const limit = 100;
  const page = Math.min(options.page, Math.floor(total / limit));

  // A tag pair that co-occurs on about 1 % of assets: the most common tag and the second.
  const tags = (await pool.query<{ t: string }>('select t from assets, unnest(tags) t group by t order by count(*) desc, t limit 2')).rows.map((r) => r.t);
  const instrument = 'INST-007';
  const titlePrefix = 'coastal sed';
  const q = topics[14]?.slice(-5) ?? 'frost';
  const indexQuery = { where: { and: [{ field: 'tags', op: 'contains', value: tags[0] ?? '' }, { field: 'metadata.instrument', op: 'eq', value: instrument }] } };
  // A record type of 4 % and the owner with the most assets (the seed's owners are skewed).
  const recordType = 'notebook';
  const owner = (await pool.query<{ id: string; n: number }>('select owner_id as id, count(*)::int as n from assets group by owner_id order by count(*) desc limit 1')).rows[0] ?? { id: '', n: 0 };
  // With --collections: the large collection (20 % of the assets) and one of about 100.
  const collectionsToList = await collectionsOfInterest(pool);

  const list = (params: string) => `/api/assets/?limit=${limit}${params}`;
  const probe = await send('GET', list(''));
  if (probe.status !== 200) throw new Error(`the listing answers ${probe.status}: ${probe.body.slice(0, 200)}`);

  // The deep pages' cursors, worked out in SQL (walking every page before them costs as
  // many requests), then checked: the service walks the last few pages to the deep one and
  // must hand out the same cursor.
  const caller = (await pool.query<{ id: string }>('select id from users where email = $1', [callerEmail])).rows[0]?.id ?? '';
  const viewer = await viewerOf(pool, caller);
  const walkFrom = Math.max(2, page - 3);
  const walkStarted = performance.now();
  let cursor = await deepPageCursor(pool, caller, walkFrom, limit);
  for (let at = walkFrom; at < page; at += 1) {
    const reply = await send('GET', list(`&cursor=${encodeURIComponent(cursor)}`));
    const next = reply.headers['x-next-cursor'];
    if (reply.status !== 200 || typeof next !== 'string') throw new Error(`page ${at}: ${reply.status}, no X-Next-Cursor`);
    cursor = next;
  }
  const computed = await deepPageCursor(pool, caller, page, limit);
  if (computed !== cursor) throw new Error(`the cursor of page ${page} worked out in SQL (${computed}) is not the one the service gave (${cursor})`);
  const middle = Math.max(2, Math.floor(page / 2));
  const middleCursor = await deepPageCursor(pool, caller, middle, limit);
  console.log(`cursors of pages ${middle.toLocaleString('en-US')} and ${page.toLocaleString('en-US')} worked out in SQL; the service walked pages ${walkFrom}..${page} to the same cursor in ${((performance.now() - walkStarted) / 1000).toFixed(1)} s`);

  const ids = (await pool.query<{ id: string }>('select id from assets order by random() limit 10000')).rows.map((r) => r.id);

  const captured = async (method: string, path: string, body?: string) => {
    await send(method, path, body); // warm: the cursor key, caches
    const { reply, statements } = await captureStatements(trace, () => send(method, path, body));
    return { reply, statements };
  };
  const cases: Case[] = [];
  const listing = async (label: string, kind: Case['kind'], missTarget: number | null, path: string, matches: number | null, method = 'GET', body?: string) => {
    const { reply, statements } = await captured(method, path, body);
    if (reply.status !== 200) throw new Error(`${label}: ${reply.status} ${reply.body.slice(0, 200)}`);
    const headers = Object.entries(reply.headers)
      .filter(([k]) => /^x-(page|has|post|scan)/.test(k))
      .map(([k, v]) => `${k}: ${String(v)}`)
      .join(', ');
    console.log(`  ${label}: ${(JSON.parse(reply.body) as unknown[]).length} assets, ${headers}; ${statements.length} statements: ${statementHeads(statements)}`);
    const variants = statements.map((st) => (/\bme\./.test(st.text) ? withViewerAsParameters(st, viewer) : st));
    const variant = variants.every((v) => v !== null) ? (variants as Statement[]) : null;
    cases.push({ label, kind, missTarget, matches, http: () => ({ method, path, ...(body ? { body } : {}) }), ok: 200, sql: () => statements, captured: statements, variant });
  };

  console.log('captured statements per request:');
  await listing('first page', 'listing', 1000, list(''), total);
  await listing(`page ${middle.toLocaleString('en-US')} by cursor`, 'deep', null, list(`&cursor=${encodeURIComponent(middleCursor)}`), total);
  await listing(`page ${page.toLocaleString('en-US')} by cursor`, 'deep', null, list(`&cursor=${encodeURIComponent(cursor)}`), total);
  await listing(`metadata=instrument:${instrument}`, 'filtered', 500, list(`&metadata=${encodeURIComponent(`instrument:${instrument}`)}`), await count(pool, 'metadata @> $1::jsonb', [JSON.stringify({ instrument })]));
  await listing(`tags=${tags.join(',')}`, 'filtered', 500, list(`&tags=${encodeURIComponent(tags.join(','))}`), await count(pool, 'tags @> $1::text[]', [tags]));
  await listing(`record_type=${recordType}`, 'filtered', 500, list(`&record_type=${recordType}`), await count(pool, 'record_type = $1', [recordType]));
  await listing(`owner_id (the largest owner)`, 'filtered', 500, list(`&owner_id=${owner.id}`), owner.n);
  for (const collection of collectionsToList) {
    await listing(`collection_id (${collection.label})`, 'filtered', 500, list(`&collection_id=${collection.id}`), collection.n);
  }
  await listing(`title_prefix=${titlePrefix}`, 'filtered', 800, list(`&title_prefix=${encodeURIComponent(titlePrefix)}`), await count(pool, 'lower(title) like $1', [`${titlePrefix}%`]));
  await listing(`q=${q}`, 'filtered', 300, list(`&q=${encodeURIComponent(q)}`), await count(pool, 'lower(title) like $1 or lower(alias) like $1', [`%${q}%`]));
  await listing(
    'POST query/ tags contains and metadata.instrument eq (index-served)',
    'filtered',
    200,
    `/api/assets/query/?limit=${limit}`,
    await count(pool, 'tags @> $1::text[] and metadata @> $2::jsonb', [[tags[0] ?? ''], JSON.stringify({ instrument })]),
    'POST',
    JSON.stringify(indexQuery),
  );
  // Datasets with a size over N: over 500, commoner than datasets, the size is post-filtered;
  // over 980 it is rarer, and walks the path's numbers (asset_metadata_numbers).
  for (const [size, note] of [[500, ''], [980, ' (range walk)']] as const) {
    await listing(
      `POST query/ dataset and metadata.size > ${size}${note}`,
      'filtered',
      200,
      `/api/assets/query/?limit=${limit}`,
      await count(pool, `record_type = 'dataset' and jsonb_typeof(metadata->'size') = 'number' and (metadata->>'size')::numeric > $1`, [size]),
      'POST',
      JSON.stringify({ where: { and: [{ field: 'record_type', op: 'eq', value: 'dataset' }, { field: 'metadata.size', op: 'gt', value: size }] } }),
    );
  }

  const one = await captured('GET', `/api/assets/${ids[0]}/`);
  if (one.reply.status !== 200) throw new Error(`GET by id: ${one.reply.status}`);
  console.log(`  GET /api/assets/{id}/: ${one.statements.length} statements: ${statementHeads(one.statements)}`);
  cases.push({
    label: 'GET /api/assets/{id}/ (10,000 random ids)',
    kind: 'read',
    missTarget: 3000,
    matches: null,
    http: (i) => ({ method: 'GET', path: `/api/assets/${ids[i % ids.length]}/` }),
    ok: 200,
    sql: (i) => withValuesReplaced(one.statements, [[ids[0] ?? '', ids[i % ids.length] ?? '']]),
    captured: one.statements,
  });

  let created = 0;
  const createBody = () => {
    created += 1;
    return JSON.stringify({ title: `Bench created ${created}`, record_type: 'dataset', tags: ['bench', 'created'], metadata: { size: created % 1000, instrument: 'INST-001' } });
  };
  const made = await captured('POST', '/api/assets/', createBody());
  if (made.reply.status !== 201) throw new Error(`POST /api/assets/: ${made.reply.status} ${made.reply.body.slice(0, 200)}`);
  const madeId = (JSON.parse(made.reply.body) as { id: string }).id;
  const append = made.statements.find((s) => /cairn_append(_checked)?\(/.test(s.text));
  const eventIds = (append?.values[4] as string[] | undefined) ?? [];
  console.log(`  POST /api/assets/: ${made.statements.length} statements: ${statementHeads(made.statements)}`);
  cases.push({
    label: 'POST /api/assets/ (create)',
    kind: 'create',
    missTarget: 1000,
    matches: null,
    http: () => ({ method: 'POST', path: '/api/assets/', body: createBody() }),
    ok: 201,
    sql: () => {
      // New ids as the service makes them (time-ordered), so that the bare inserts touch the same index pages it would.
      const id = timeOrderedId();
      return createForNewAsset(made.statements, [[madeId, id], ...eventIds.map((e) => [e, timeOrderedId()] as const)], `asset-${madeId}`, `asset-${id}`);
    },
    captured: made.statements,
  });
  return cases;
}
