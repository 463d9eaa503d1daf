import { openResources } from '@cairn/cli';
import { createLogger, createPool, loadConfig, migrate } from '@cairn/platform';
import { autocannonCreates, type LoadResult } from './autocannon-load.ts';
import { benchPublicUrl, startCairn, type CairnProcess } from './cairn-process.ts';
import { appendWithReadModelLimit, servicePoolSize } from './limits.ts';
import { withScratchDatabase } from './scratch-database.ts';
import { issueBenchToken } from './service-client.ts';
import { createsOnly, createThenRead } from './split-load.ts';
import { printTable, ratio, type Cell } from './table.ts';

const clients = 16;

async function benchToken(url: string): Promise<string> {
  const resources = await openResources(loadConfig({ DATABASE_URL: url, CAIRN_LOG_LEVEL: 'silent', CAIRN_PUBLIC_URL: benchPublicUrl }), { logger: createLogger('silent'), queryTimeout: false });
  try {
    return await issueBenchToken(resources);
  } finally {
    await resources.close();
  }
}

async function stopAll(processes: readonly CairnProcess[]): Promise<void> {
  for (const p of processes) await p.stop();
}

/**
 * `npm run bench -- http`: 16 clients creating funding agencies over HTTP, the load
 * generator in this process and the service in child processes (`cairn serve --role ...`),
 * so the generator shares the two cores (as in the issue) but never the service's event
 * loop. (a) all-in-one; (b) command, query and projector apart, each create read back from
 * the query process with its consistency token.
 */
export async function httpBenchmark(scale: number): Promise<void> {
  const seconds = Math.max(3, Math.round(10 * scale));
  const limit = await withScratchDatabase('http_limit', async (url) => {
    const pool = createPool(url, servicePoolSize);
    try {
      await migrate(pool);
      return await appendWithReadModelLimit(pool, clients, Math.max(2, 5 * scale));
    } finally {
      await pool.end();
    }
  });
  const rows: Cell[][] = [];
  const row = (shape: string, r: LoadResult, target: string, extra = '') =>
    rows.push([shape, r.generator, r.requests, r.perSecond, r.p50Ms, r.p99Ms, r.errors, target, limit.perSecond, ratio(r.perSecond, limit.perSecond), extra]);
  const base = 19_000 + Math.floor(Math.random() * 500);

  await withScratchDatabase('http_all', async (url) => {
    const token = await benchToken(url);
    const all = await startCairn('all', url, base);
    try {
      await autocannonCreates(all.url, token, 4, Math.max(1, 2 * scale));
      row('(a) all-in-one, POST', await autocannonCreates(all.url, token, clients, seconds), '≥1,500/s, p99 <50 ms');
      row('(a) all-in-one, POST', await createsOnly(all.url, token, clients, seconds), '≥1,500/s, p99 <50 ms');
    } finally {
      await all.stop();
    }
  });

  let split: Awaited<ReturnType<typeof createThenRead>> | null = null;
  await withScratchDatabase('http_split', async (url) => {
    const token = await benchToken(url);
    const processes: CairnProcess[] = [];
    try {
      processes.push(await startCairn('projector', url, base + 1));
      const command = await startCairn('command', url, base + 2);
      const query = await startCairn('query', url, base + 3);
      processes.push(command, query);
      await autocannonCreates(command.url, token, 4, Math.max(1, 2 * scale));
      row('(b) split, POST to command', await autocannonCreates(command.url, token, clients, seconds), '≥1,000/s');
      split = await createThenRead(command.url, query.url, token, clients, seconds);
      const s = split;
      rows.push([
        '(b) split, POST then GET from query',
        'node:http keep-alive',
        s.creates,
        s.createsPerSecond,
        s.postP50Ms,
        s.postP99Ms,
        s.errors,
        '≥1,000/s',
        limit.perSecond,
        ratio(s.createsPerSecond, limit.perSecond),
        `${s.reads} reads, ${s.readMismatches} not 200 with the name; GET p50 ${s.getP50Ms.toFixed(1)} p99 ${s.getP99Ms.toFixed(1)} ms`,
      ]);
    } finally {
      await stopAll(processes.reverse());
    }
  });

  printTable(
    `HTTP creates (POST /api/funding-agencies/, answers with the read model), ${clients} concurrent clients, ${seconds} s each; limit: append + read-model insert transaction, bare pg, ${clients} clients (p50 ${limit.p50Ms.toFixed(1)} ms)`,
    ['shape', 'generator', 'creates', 'per s', 'p50 ms', 'p99 ms', 'errors', 'target', 'limit/s', 'ratio', 'read-your-writes'],
    rows,
  );
  const s = split as Awaited<ReturnType<typeof createThenRead>> | null;
  if (s?.lastMismatch) console.log(`  last mismatching read: ${s.lastMismatch}`);
}
