import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { openResources, tokensIssue, usersCreate } from '@cairn/cli';
import { createLogger, loadConfig } from '@cairn/platform';
import pg from 'pg';
import { benchPublicUrl, startCairn, type CairnProcess } from './cairn-process.ts';
import { withScratchDatabase } from './scratch-database.ts';
import { num, printTable, type Cell } from './table.ts';

/** A process's resident memory now, in MiB (Linux). */
function rssMib(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, '') ?? 0) / 1024;
}

type Run = { seconds: number; bytes: number; rows: number; rssBefore: number; rssPeak: number };

/** GET `path` to the end, counting bytes, while the service's memory is sampled. */
async function fetchWhole(service: CairnProcess, token: string, path: string): Promise<Run> {
  const rssBefore = rssMib(service.pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssMib(service.pid));
  }, 20);
  const started = performance.now();
  try {
    const { bytes, text } = await new Promise<{ bytes: number; text: string }>((resolve, reject) => {
      const req = request(`${service.url}${path}`, { headers: { Authorization: `Bearer ${token}` } }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`GET ${path}: ${res.statusCode}`));
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ bytes, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    const seconds = (performance.now() - started) / 1000;
    const rows = (JSON.parse(text) as unknown[]).length;
    return { seconds, bytes, rows, rssBefore, rssPeak: Math.max(rssPeak, rssMib(service.pid)) };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * `npm run bench -- collection-listing`: `GET /api/collections/` without `limit` (every
 * collection the caller sees, streamed: docs/collections.md "The whole listing") over
 * 100,000 collections written straight into the read model, the service in a child
 * process. What it shows: the time and bytes of the whole answer, and that the service's
 * memory stays near where it was (a page of rows at a time), not in proportion to the answer.
 */
export async function collectionListingBenchmark(scale: number): Promise<void> {
  const counts = [Math.round(10_000 * scale), Math.round(100_000 * scale)];
  await withScratchDatabase('collection_listing', async (url) => {
    const resources = await openResources(loadConfig({ DATABASE_URL: url, CAIRN_LOG_LEVEL: 'silent', CAIRN_PUBLIC_URL: benchPublicUrl }), { logger: createLogger('silent'), queryTimeout: false });
    const owners: { id: string; token: string; count: number }[] = [];
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    try {
      // One owner per size, seeded before the service starts (its projector then finds the rows in place).
      for (const [index, count] of counts.entries()) {
        const email = `listing-owner-${index}@example.org`;
        const { id } = await usersCreate(resources, ['--email', email, '--name', `Listing owner ${index}`]);
        const { access_token: token } = await tokensIssue(resources, ['--user', email, '--ttl', '86400']);
        await pool.query(
          `insert into collections (id, title, alias, owner_type, owner_user_id, parent_ids, owner_grants, entry_grants, created_at, updated_at)
           select gen_random_uuid(), 'Collection ' || i, 'c' || i, 'user', $1::uuid, '{}', jsonb_build_object('u:' || $1::text, 511), '{}',
                  timestamptz '2026-01-01' + i * interval '1 second', timestamptz '2026-01-01' + i * interval '1 second'
           from generate_series(1, $2::int) i`,
          [id, count],
        );
        owners.push({ id, token, count });
      }
      // Written straight into the read model, so its readers' postings too (migration 0045), as the projection keeps them.
      await pool.query('insert into collection_reader_order (collection_id, principal, created_at) select c.id, r, c.created_at from collections c, unnest(c.readers) r on conflict do nothing');
      await pool.query('vacuum (analyze) collections, collection_reader_order');
    } finally {
      await resources.close();
      await pool.end();
    }
    const rows: Cell[][] = [];
    // The read cache off: every answer is computed. A small heap too: an answer held whole would not fit.
    for (const heapMib of [null, 96]) {
      const env: Record<string, string> = { CAIRN_READ_CACHE_MB: '0', ...(heapMib ? { NODE_OPTIONS: `--max-old-space-size=${heapMib}` } : {}) };
      // The query role alone: no projector, which would rebuild the read model from the events (these rows have none).
      const service = await startCairn('query', url, 19_800 + Math.floor(Math.random() * 100), env);
      try {
        for (const owner of owners) {
          const run = await fetchWhole(service, owner.token, '/api/collections/');
          rows.push([heapMib ? `${heapMib} MiB` : 'default', num(run.rows), num(run.seconds, 2), num(run.rows / run.seconds), num(run.bytes / 1_048_576, 1), num(run.rssBefore), num(run.rssPeak), num(run.rssPeak - run.rssBefore)]);
        }
      } finally {
        await service.stop();
      }
    }
    printTable('The whole collection listing (GET /api/collections/ without limit, one client)', ['service heap', 'collections', 's', 'collections/s', 'answer MiB', 'RSS before MiB', 'peak MiB', 'growth MiB'], rows);
  });
}
