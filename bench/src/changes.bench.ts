import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openResources, tokensIssue, usersCreate, type Resources } from '@cairn/cli';
import { createLogger, decodePosition, encodePosition, loadConfig, type GlobalPosition } from '@cairn/platform';
import { changeEventTypes } from '@cairn/query-api';
import pg from 'pg';
import { benchPublicUrl, startCairn, type CairnProcess } from './cairn-process.ts';
import { keepAliveClient } from './keep-alive-client.ts';
import { load } from './run-output.ts';
import { withScratchDatabase } from './scratch-database.ts';
import { followSse, type SseFollower } from './sse-follower.ts';
import { spread } from './stats.ts';
import { num, printTable } from './table.ts';
import { countArgument } from './cli-arguments.ts';

/** `http`: assets created through the command process; `append`: updates of assets appended through the event store by the bench (inline read models applied), timed from their commit. */
type Via = 'http' | 'append';
type Options = { followers: number; users: number; writeRate: number; seconds: number; behind: number; via: Via };

function parseOptions(args: readonly string[], scale: number): Options {
  const options: Options = { followers: 1000, users: 100, writeRate: 500, seconds: Math.max(5, Math.round(30 * scale)), behind: Math.round(1_000_000 * scale), via: 'http' };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    const value = () => countArgument(args, (i += 1), arg);
    if (arg === '--followers') options.followers = value();
    else if (arg === '--users') options.users = value();
    else if (arg === '--write-rate') options.writeRate = value();
    else if (arg === '--seconds') options.seconds = value();
    else if (arg === '--behind') options.behind = value();
    else if (arg === '--via') {
      i += 1;
      const via = args[i];
      if (via !== 'http' && via !== 'append') throw new Error('--via needs http or append');
      options.via = via;
    } else throw new Error(`unknown option ${arg}; options: --followers N, --users U, --write-rate W, --seconds S, --behind N, --via http|append`);
  }
  return options;
}

/** CPU seconds (user + system) a process has used, and its resident memory in MiB (Linux /proc). */
function processUsage(pid: number): { cpuSeconds: number; rssMib: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const rss = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return { cpuSeconds: ticks / 100, rssMib: Number(rss?.replace(/\D+/g, '') ?? 0) / 1024 };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `npm run bench -- changes [--followers N] [--users U] [--write-rate W] [--seconds S]
 * [--behind N]`: the change feed (docs/changes.md). Live: N Server-Sent Events followers
 * (U users, each seeing one collection of U) on one `cairn serve --role query` process while
 * a writer creates assets through a command process at W/s; the latency from the write's
 * request to each follower, and the query process's CPU and memory. Catch-up: a follower N
 * changes behind, as JSON pages and as a stream, beside the bare log read of the same events.
 */
export async function changesBenchmark(scale: number): Promise<void> {
  const options = parseOptions(process.argv.slice(3), scale);
  await withScratchDatabase('changes', async (url) => {
    console.log(`\n=== changes: ${options.followers} followers of ${options.users} users, writer at ${options.writeRate}/s for ${options.seconds} s; catch-up ${options.behind.toLocaleString('en-US')} behind; load ${load()}`);
    const resources = await openResources(loadConfig({ DATABASE_URL: url, CAIRN_LOG_LEVEL: 'silent', CAIRN_PUBLIC_URL: benchPublicUrl }), { logger: createLogger('silent'), queryTimeout: false });
    const base = 20_000 + Math.floor(Math.random() * 500);
    const command = await startCairn('command', url, base);
    const query = await startCairn('query', url, base + 1, { CAIRN_CHANGES_STREAMS_PER_CALLER: String(Math.ceil(options.followers / options.users) + 2), CAIRN_CHANGES_STREAMS_PER_PROCESS: String(options.followers + 10) });
    try {
      const setup = await prepare(resources, command, options);
      await live(resources, command, query, setup, options);
      if (options.behind > 0) await catchUp(resources, command, query, setup, options);
    } finally {
      await query.stop();
      await command.stop();
      await resources.close();
    }
  });
}

type Setup = { writerToken: string; followerTokens: string[]; collections: string[]; assets: string[]; after: string };

async function prepare(resources: Resources, command: CairnProcess, options: Options): Promise<Setup> {
  await usersCreate(resources, ['--email', 'writer@bench.example', '--name', 'Writer']);
  const writerToken = (await tokensIssue(resources, ['--user', 'writer@bench.example', '--ttl', '86400'])).access_token;
  const http = keepAliveClient(command.url, 8);
  const headers = { Authorization: `Bearer ${writerToken}`, 'Content-Type': 'application/json' };
  const followerTokens: string[] = [];
  const collections: string[] = [];
  const assets: string[] = [];
  let after = '';
  try {
    for (let u = 0; u < options.users; u += 1) {
      const { id } = await usersCreate(resources, ['--email', `follower${u}@bench.example`, '--name', `Follower ${u}`]);
      followerTokens.push((await tokensIssue(resources, ['--user', id, '--ttl', '86400'])).access_token);
      const created = await http.request('POST', '/api/collections/', headers, JSON.stringify({ title: `Shared with follower ${u}` }));
      const collection = (JSON.parse(created.body) as { id: string }).id;
      collections.push(collection);
      const granted = await http.request('PUT', `/api/collections/${collection}/permissions/`, headers, JSON.stringify({ permissions: [{ subject_type: 'user', subject_id: id, flags: 1 }] }));
      if (granted.status !== 200) throw new Error(`permissions: ${granted.status} ${granted.body}`);
      after = String(granted.headers['x-consistency-token'] ?? after);
    }
    // One asset per collection: what `--via append` updates.
    for (const collection of collections) {
      const created = await http.request('POST', '/api/assets/', headers, JSON.stringify({ title: 'updated by the writer', collection_id: collection }));
      assets.push((JSON.parse(created.body) as { id: string }).id);
      after = String(created.headers['x-consistency-token'] ?? after);
    }
  } finally {
    http.close();
  }
  return { writerToken, followerTokens, collections, assets, after };
}

async function live(resources: Resources, command: CairnProcess, query: CairnProcess, setup: Setup, options: Options): Promise<void> {
  const latencies: number[] = [];
  /** Per delivery, the write's title and when it arrived: timed against the write's answer afterwards. */
  const deliveries: { title: string; at: number }[] = [];
  const answeredAt = new Map<string, number>();
  const followers: SseFollower[] = [];
  for (let f = 0; f < options.followers; f += 1) {
    const token = setup.followerTokens[f % options.users] ?? '';
    const follower = followSse(query.url, `/api/changes/?after=${setup.after}&kinds=asset`, token, (data, at) => {
      const title = (JSON.parse(data) as { fields: { title?: string } }).fields.title ?? '';
      if (!title.startsWith('w:')) return;
      latencies.push(at - Number(title.slice(2)));
      deliveries.push({ title, at });
    });
    followers.push(follower);
    if (f % 50 === 49) await Promise.all(followers.slice(-50).map((x) => x.opened));
  }
  const statuses = await Promise.all(followers.map((f) => f.opened));
  const refused = statuses.filter((s) => s !== 200).length;
  await pause(2000);
  const idle = processUsage(query.pid);

  // An open loop at the rate asked for, as many requests in flight as it takes (at most 64).
  const http = keepAliveClient(command.url, 64);
  const headers = { Authorization: `Bearer ${setup.writerToken}`, 'Content-Type': 'application/json' };
  const writeLatencies: number[] = [];
  let written = 0;
  let failed = 0;
  let inFlight = 0;
  const before = processUsage(query.pid);
  let rssPeak = before.rssMib;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, processUsage(query.pid).rssMib)), 250);
  // The bench's own event loop: a late loop times deliveries late (it also runs the writer and every follower's socket).
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  // Followers read below the cluster's oldest running transaction (docs/event-store.md): how old it was, sampled, says what held them back.
  const probe = new pg.Pool({ connectionString: resources.databaseUrl, max: 1 });
  const oldest: number[] = [];
  const probing = setInterval(() => {
    probe
      .query<{ ms: number | null }>('select (extract(epoch from max(now() - xact_start)) * 1000)::float8 as ms from pg_stat_activity where backend_xid is not null')
      .then((r) => oldest.push(r.rows[0]?.ms ?? 0), () => undefined);
  }, 250);
  const started = performance.now();
  const writes: Promise<void>[] = [];
  for (let n = 0; performance.now() - started < options.seconds * 1000; n += 1) {
    const due = started + (n * 1000) / options.writeRate;
    const wait = due - performance.now();
    if (wait > 0) await pause(wait);
    if (inFlight >= 64) {
      failed += 1;
      continue;
    }
    inFlight += 1;
    const sent = performance.timeOrigin + performance.now();
    const title = `w:${sent}`;
    const body = JSON.stringify({ title, collection_id: setup.collections[n % options.users] });
    const asset = setup.assets[n % options.users] ?? '';
    const metadata = { actorId: null, requestId: null, correlationId: randomUUID(), causationId: null, occurredAt: new Date(sent).toISOString() };
    const write =
      options.via === 'http'
        ? http.request('POST', '/api/assets/', headers, body).then((reply) => reply.status === 201)
        : resources.eventStore
            .appendToStream(`asset-${asset}`, [{ id: randomUUID(), type: 'AssetUpdated', schemaVersion: 1, data: { id: asset, changes: { title } }, metadata }], { expectedVersion: 'any' })
            .then(() => true);
    writes.push(
      write.then(
        (ok) => {
          inFlight -= 1;
          if (ok) {
            written += 1;
            const at = performance.timeOrigin + performance.now();
            answeredAt.set(title, at);
            writeLatencies.push(at - sent);
          } else failed += 1;
        },
        () => {
          inFlight -= 1;
          failed += 1;
        },
      ),
    );
  }
  await Promise.all(writes);
  const writeSeconds = (performance.now() - started) / 1000;
  // Every write reaches the followers of its collection's user: wait for the last ones.
  const expected = written * Math.floor(options.followers / options.users);
  const deadline = performance.now() + 30_000;
  while (latencies.length < expected && performance.now() < deadline) await pause(100);
  const after = processUsage(query.pid);
  clearInterval(sampler);
  http.close();
  for (const f of followers) f.close();

  const delivery = spread(latencies);
  // From the write's answer (its commit is before it): negative where a follower had it before the writer had its answer.
  const fromCommit = spread(deliveries.flatMap((d) => {
    const answered = answeredAt.get(d.title);
    return answered === undefined ? [] : [d.at - answered];
  }));
  const write = spread(writeLatencies);
  const cpu = (after.cpuSeconds - before.cpuSeconds) / ((performance.now() - started) / 1000);
  printTable(
    `Change feed, live: Server-Sent Events followers of one query process while assets are written (${options.via === 'http' ? 'created through the command process; answer = its HTTP answer' : 'updates appended through the event store by the bench; answer = the commit'})`,
    ['followers', 'refused', 'writes/s', 'write p50 ms', 'deliveries', 'of expected', 'request→follower p50 ms', 'p99 ms', 'answer→follower p50 ms', 'p99 ms', 'query CPU', 'RSS idle MiB', 'RSS peak MiB'],
    [[options.followers, refused, num(written / writeSeconds), num(write.p50), delivery.count, expected, num(delivery.p50), num(delivery.p99), num(fromCommit.p50), num(fromCommit.p99), `${num(cpu * 100)} %`, num(idle.rssMib), num(rssPeak)]],
  );
  loopDelay.disable();
  clearInterval(probing);
  await probe.end();
  const held = spread(oldest);
  console.log(`  the cluster's oldest transaction holding an xid, sampled every 250 ms: p50 ${num(held.p50)} ms, p99 ${num(held.p99)} ms, max ${num(Math.max(0, ...oldest))} ms`);
  console.log(`  writes refused or dropped (over 64 in flight): ${failed}; the bench's event loop delay p50 ${num(loopDelay.percentile(50) / 1e6)} ms, p99 ${num(loopDelay.percentile(99) / 1e6)} ms; load ${load()}`);
}

/** Appends `count` AssetUpdated events over the writer's first assets, set-based, in transactions of 50,000 (as fill-log.ts does). */
async function fillChanges(pool: pg.Pool, assetIds: readonly string[], count: number): Promise<void> {
  const chunk = 50_000;
  for (let from = 0; from < count; from += chunk) {
    const size = Math.min(chunk, count - from);
    await pool.query(
      `insert into events (event_id, stream_id, stream_version, type, schema_version, data, metadata)
       select gen_random_uuid(), 'asset-' || a.id, v.version + 1 + (s.n / $3::int), 'AssetUpdated', 1,
         jsonb_build_object('id', a.id, 'changes', jsonb_build_object('description', 'd' || s.n)),
         jsonb_build_object('actorId', null, 'requestId', null, 'correlationId', gen_random_uuid(), 'causationId', null,
           'occurredAt', to_char(clock_timestamp() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
       from generate_series($1::int, $2::int) as s(n)
       join lateral (select x.id, x.ord from unnest($4::uuid[]) with ordinality as x(id, ord) where x.ord = 1 + s.n % $3::int) a on true
       join lateral (select max(e.stream_version) as version from events e where e.stream_id = 'asset-' || a.id) v on true
       order by s.n`,
      [from, from + size - 1, assetIds.length, assetIds],
    );
  }
  await pool.query('analyze events');
}

async function catchUp(resources: Resources, writer: CairnProcess, query: CairnProcess, setup: Setup, options: Options): Promise<void> {
  const count = options.behind;
  const pool = new pg.Pool({ connectionString: resources.databaseUrl, max: 2 });
  const http = keepAliveClient(query.url, 2);
  try {
    // The follower's changes: ten assets in the collection it may read.
    const command = keepAliveClient(writer.url, 4);
    const assetIds: string[] = [];
    for (let n = 0; n < 10; n += 1) {
      const reply = await command.request('POST', '/api/assets/', { Authorization: `Bearer ${setup.writerToken}`, 'Content-Type': 'application/json' }, JSON.stringify({ title: `catch-up ${n}`, collection_id: setup.collections[0] }));
      assetIds.push((JSON.parse(reply.body) as { id: string }).id);
    }
    command.close();
    const start: GlobalPosition = await resources.eventStore.headPosition();
    const filled = performance.now();
    await fillChanges(pool, assetIds, count);
    console.log(`  ${count.toLocaleString('en-US')} changes appended in ${((performance.now() - filled) / 1000).toFixed(1)} s`);

    // The limit: the log read alone, in the feed's batches of 1,000 events of its types.
    let position = start;
    let bare = 0;
    const bareStarted = performance.now();
    for (;;) {
      const page = await resources.eventStore.readLog(position, 1000, changeEventTypes);
      bare += page.events.length;
      position = page.through;
      if (!page.full) break;
    }
    const bareRate = bare / ((performance.now() - bareStarted) / 1000);

    // As JSON pages of 1,000, following `next`.
    const token = setup.followerTokens[0] ?? '';
    let after = encodePosition(start);
    let paged = 0;
    const pagesStarted = performance.now();
    const usageBefore = processUsage(query.pid);
    for (;;) {
      const reply = await http.request('GET', `/api/changes/?limit=1000&after=${after}`, { Authorization: `Bearer ${token}` });
      const body = JSON.parse(reply.body) as { changes: unknown[]; next: string; has_more: boolean };
      paged += body.changes.length;
      after = body.next;
      if (!body.has_more) break;
    }
    const pagedSeconds = (performance.now() - pagesStarted) / 1000;
    const pagedCpu = (processUsage(query.pid).cpuSeconds - usageBefore.cpuSeconds) / pagedSeconds;

    // As a stream, until the last change arrives.
    let streamed = 0;
    const streamStarted = performance.now();
    const follower = followSse(query.url, `/api/changes/?after=${encodePosition(start)}`, token, () => (streamed += 1));
    const deadline = performance.now() + 1_800_000;
    while (streamed < paged && performance.now() < deadline) await pause(50);
    const streamedSeconds = (performance.now() - streamStarted) / 1000;
    follower.close();
    const lastSeen = decodePosition(follower.lastId() ?? '');

    printTable(
      `Change feed, catch-up of a follower ${count.toLocaleString('en-US')} changes behind`,
      ['read', 'changes', 'seconds', 'changes/s', 'of the bare log read', 'query CPU'],
      [
        ['bare log read (readLog, 1,000 a batch, in the bench process)', bare, num(bare / bareRate), Math.round(bareRate), '1.00', ''],
        ['GET /api/changes/?limit=1000, following next', paged, num(pagedSeconds), Math.round(paged / pagedSeconds), num(paged / pagedSeconds / bareRate, 2), `${num(pagedCpu * 100)} %`],
        ['the same as Server-Sent Events', streamed, num(streamedSeconds), Math.round(streamed / streamedSeconds), num(streamed / streamedSeconds / bareRate, 2), ''],
      ],
    );
    if (!lastSeen) console.log('  the stream sent no id');
  } finally {
    http.close();
    await pool.end();
  }
}
