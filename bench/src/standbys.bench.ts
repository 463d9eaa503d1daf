import { openResources, tokensIssue } from '@cairn/cli';
import { createLogger, loadConfig } from '@cairn/platform';
import pg from 'pg';
import { findPostgresBinaries, startReplicatedPostgres, type ReplicatedPostgres } from '../../test/src/support/replicated-postgres.ts';
import { freePort } from '../../test/src/support/processes.ts';
import { callerEmail, ensureAssetTemplate, withAssetDatabase } from './asset-seed.ts';
import { benchPublicUrl, startCairn, type CairnProcess } from './cairn-process.ts';
import { closedLoop, type LoopResult } from './closed-loop.ts';
import { keepAliveClient } from './keep-alive-client.ts';
import { runWriter } from './mixed-writer.ts';
import { commitOf, load, uptime, withOutputKept } from './run-output.ts';
import { useBenchServer } from './scratch-database.ts';
import { spread } from './stats.ts';
import { printTable, type Cell } from './table.ts';

type Options = { assets: number; seconds: number | null; writeRate: number };

function parseOptions(args: readonly string[]): Options {
  const options: Options = { assets: 100_000, seconds: null, writeRate: 1000 };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    const value = () => {
      i += 1;
      const v = Number((args[i] ?? '').replace(/_/g, ''));
      if (!Number.isFinite(v) || v <= 0) throw new Error(`${arg} needs a positive number`);
      return v;
    };
    if (arg === '--assets') options.assets = value();
    else if (arg === '--seconds') options.seconds = value();
    else if (arg === '--write-rate') options.writeRate = value();
    else throw new Error(`unknown option ${arg}; options: --assets N, --seconds S, --write-rate W`);
  }
  return options;
}

const topologies = [
  { name: 'primary alone', standbys: 0 },
  { name: 'one standby', standbys: 1 },
  { name: 'two standbys', standbys: 2 },
] as const;

/**
 * `npm run bench -- standbys [--assets N] [--seconds S] [--write-rate W]`: a primary and two
 * hot standbys of its own on this machine (the machine's PostgreSQL binaries, as the
 * standby test makes them), seeded with N assets; one query process with the read cache
 * off reads the asset listing's first page (the miss path) and assets by id at 16 and 64
 * clients, on the primary alone, then on one and on two standbys. Then a writer at W/s
 * through a command process while the standbys' replay lag is sampled (the query process's
 * own figure, and PostgreSQL's pg_stat_replication). One machine shares its cores between
 * every server: this shows the mechanism's cost and the lag, not the scale-out.
 */
export async function standbysBenchmark(scale: number): Promise<void> {
  const options = parseOptions(process.argv.slice(3));
  const seconds = options.seconds ?? Math.max(3, Math.round(10 * scale));
  const binaries = findPostgresBinaries();
  if (!binaries) {
    console.log('\n=== standbys: skipped, no PostgreSQL binaries with pg_basebackup (/usr/lib/postgresql/<major>/bin, or CAIRN_PG_BIN)');
    return;
  }
  await withOutputKept('standbys', async () => {
    console.log(`\n=== standbys: ${options.assets.toLocaleString('en-US')} assets, ${seconds} s per figure, writer ${options.writeRate}/s, commit ${commitOf()}, ${new Date().toISOString()}`);
    console.log(`machine at start: ${uptime()}`);
    const cluster = await startReplicatedPostgres(binaries, 2);
    const previous = useBenchServer(cluster.primary.url());
    try {
      const template = await ensureAssetTemplate(options.assets, { reseed: false, path: 'bulk' }, (line) => console.log(line));
      await withAssetDatabase(template.name, (url, name) => measure(cluster, url, name, options, seconds));
    } finally {
      useBenchServer(previous);
      await cluster.close();
    }
    console.log(`machine at end: ${uptime()}`);
  });
}

async function tokenFor(url: string): Promise<string> {
  const resources = await openResources(loadConfig({ DATABASE_URL: url, CAIRN_LOG_LEVEL: 'silent', CAIRN_PUBLIC_URL: benchPublicUrl }), { logger: createLogger('silent'), queryTimeout: false });
  try {
    return (await tokensIssue(resources, ['--user', callerEmail, '--ttl', '86400'])).access_token;
  } finally {
    await resources.close();
  }
}

type Row = { topology: string; shape: string; clients: number; loop: LoopResult; byStandby: number };

async function measure(cluster: ReplicatedPostgres, url: string, name: string, options: Options, seconds: number): Promise<void> {
  await cluster.caughtUp();
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const ids = (await pool.query<{ id: string }>('select id from assets order by md5(id::text) limit 2000')).rows.map((r) => r.id);
  await pool.end();
  const token = await tokenFor(url);
  const headers = { authorization: `Bearer ${token}` };
  const standbyUrls = cluster.standbys.map((s) => s.url(name));
  const rows: Row[] = [];

  for (const topology of topologies) {
    const env = { CAIRN_READ_CACHE_MB: '0', DATABASE_READ_URL: standbyUrls.slice(0, topology.standbys).join(',') };
    const query = await startCairn('query', url, await freePort(), env);
    const http = keepAliveClient(query.url, 72);
    try {
      for (const clients of [16, 64]) {
        for (const shape of ['listing (miss)', 'asset by id'] as const) {
          let byStandby = 0;
          const path = (i: number) => (shape === 'asset by id' ? `/api/assets/${ids[i % ids.length]}/` : '/api/assets/');
          const op = async (worker: number, i: number) => {
            const reply = await http.request('GET', path(worker * 7919 + i), headers);
            if (reply.status !== 200) throw new Error(`${shape}: ${reply.status} ${reply.body.slice(0, 160)}`);
            if (reply.headers['x-standby-lag-ms'] !== undefined) byStandby += 1;
          };
          await closedLoop(clients, Math.min(2, seconds), op); // warm up: connections and plans on every server
          byStandby = 0;
          const loop = await closedLoop(clients, seconds, op);
          rows.push({ topology: topology.name, shape, clients, loop, byStandby });
          console.log(`  ${topology.name}, ${shape}, ${clients} clients: ${loop.perSecond.toFixed(0)}/s, p50 ${loop.p50Ms.toFixed(1)} ms, load ${load()}`);
        }
      }
    } finally {
      http.close();
      await query.stop();
    }
  }

  const perSecond = (topology: string, shape: string, clients: number) => rows.find((r) => r.topology === topology && r.shape === shape && r.clients === clients)?.loop.perSecond;
  printTable(
    'reads with the read cache off: requests/s (p50, p99 ms), and the share a standby answered',
    ['topology', 'shape', 'clients', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'by standby', 'vs primary alone'],
    rows.map((r): Cell[] => {
      const alone = perSecond('primary alone', r.shape, r.clients);
      return [r.topology, r.shape, r.clients, r.loop.perSecond, r.loop.p50Ms, r.loop.p99Ms, r.loop.errors, `${((100 * r.byStandby) / Math.max(1, r.loop.ops)).toFixed(0)} %`, alone ? `${(r.loop.perSecond / alone).toFixed(2)}×` : '—'];
    }),
  );
  await replayLag(cluster, url, standbyUrls, token, options.writeRate, seconds);
  await bareReplayLag(cluster, url, options.writeRate, seconds);
}

/** Replay lag in milliseconds, as the primary's pg_stat_replication reports it, per standby connection. */
function lagSampler(primary: pg.Client) {
  const lags = new Map<string, number[]>();
  let sampling = true;
  const done = (async () => {
    while (sampling) {
      const { rows } = await primary.query<{ name: string; ms: number | null }>("select application_name || ':' || client_port as name, extract(epoch from replay_lag) * 1000 as ms from pg_stat_replication");
      for (const r of rows) lags.set(r.name, [...(lags.get(r.name) ?? []), r.ms ?? 0]);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    async stop() {
      sampling = false;
      await done;
      return lags;
    },
  };
}

/**
 * The replication alone at `rate` commits/s: what the service could not reach on this
 * machine. Each commit inserts a row of about the WAL of one asset write (a 2 KiB text, two
 * indexes), from 16 connections in an open loop.
 */
async function bareReplayLag(cluster: ReplicatedPostgres, url: string, rate: number, seconds: number): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 16 });
  await pool.query('create table if not exists bench_replay (id bigserial primary key, at timestamptz not null default now(), body text not null)');
  await pool.query('create index if not exists bench_replay_at on bench_replay (at)');
  const primary = new pg.Client({ connectionString: cluster.primary.url() });
  await primary.connect();
  const body = 'x'.repeat(2048);
  const sampler = lagSampler(primary);
  const latencies: number[] = [];
  let skipped = 0;
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  for (let i = 0; ; i += 1) {
    const at = started + (i * 1000) / rate;
    if (at >= started + seconds * 1000) break;
    const wait = at - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (inFlight.size >= 64) {
      skipped += 1;
      continue;
    }
    const begun = performance.now();
    const p: Promise<void> = pool.query('insert into bench_replay (body) values ($1)', [body]).then(() => void latencies.push(performance.now() - begun)).finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - started) / 1000;
  const lags = await sampler.stop();
  await primary.end();
  await pool.end();
  console.log(`
bare SQL writer: asked ${rate}/s, did ${(latencies.length / elapsed).toFixed(0)} commits/s (p50 ${spread(latencies).p50.toFixed(1)} ms, ${skipped} ticks skipped with 64 in flight)`);
  printTable(
    'replay lag under the bare SQL writer, ms (pg_stat_replication.replay_lag, sampled every 100 ms)',
    ['standby', 'samples', 'p50', 'p99', 'max'],
    [...lags].map(([standby, values]): Cell[] => [standby, values.length, spread(values).p50, spread(values).p99, Math.max(...values)]),
  );
}

/** A writer at `rate` through a command process; the replay lag sampled every 100 ms meanwhile. */
async function replayLag(cluster: ReplicatedPostgres, url: string, standbyUrls: readonly string[], token: string, rate: number, seconds: number): Promise<void> {
  const opsPort = await freePort();
  const command: CairnProcess = await startCairn('command', url, await freePort());
  const query: CairnProcess = await startCairn('query', url, await freePort(), { DATABASE_READ_URL: standbyUrls.join(','), CAIRN_OPS_PORT: String(opsPort) });
  const primary = new pg.Client({ connectionString: cluster.primary.url() });
  await primary.connect();
  const http = keepAliveClient(command.url, 72);
  const routerLag = new Map<string, number[]>();
  const postgres = lagSampler(primary);
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const metrics = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
      for (const m of metrics.matchAll(/cairn_standby_replay_lag_ms\{standby="([^"]+)"\} (-?\d+)/g)) routerLag.set(m[1] ?? '', [...(routerLag.get(m[1] ?? '') ?? []), Number(m[2])]);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  try {
    const writer = await runWriter(http, token, rate, seconds);
    sampling = false;
    await sampler;
    const postgresLag = await postgres.stop();
    console.log(`\nwriter: asked ${rate}/s, did ${writer.perSecond.toFixed(0)}/s (p50 ${writer.p50Ms.toFixed(1)} ms, p99 ${writer.p99Ms.toFixed(1)} ms, ${writer.errors} errors, ${writer.skipped} ticks skipped with 64 writes in flight), load ${load()}`);
    const table = (label: string, lags: Map<string, number[]>) =>
      [...lags].map(([standby, values]): Cell[] => {
        const s = spread(values);
        return [label, standby, values.length, s.p50, s.p99, Math.max(...values)];
      });
    printTable('replay lag under the writer, ms (sampled every 100 ms)', ['measured by', 'standby', 'samples', 'p50', 'p99', 'max'], [...table('query process (X-Standby-Lag-Ms)', routerLag), ...table('pg_stat_replication.replay_lag', postgresLag)]);
  } finally {
    sampling = false;
    await postgres.stop();
    http.close();
    await primary.end();
    await query.stop();
    await command.stop();
  }
}
