import { createPool, migrate } from '@cairn/platform';
import { closedLoop } from './closed-loop.ts';
import { appendWithReadModelLimit, insertEventLimit, insertReadModelLimit, pointSelectLimit, servicePoolSize } from './limits.ts';
import { withScratchDatabase } from './scratch-database.ts';
import { createAgency, startInProcess } from './service-client.ts';
import { installSqlTrace } from './sql-trace.ts';
import { spread } from './stats.ts';
import { printTable, ratio, type Cell } from './table.ts';
import { orderStages, writeTimelines, type WriteRecord } from './write-timeline.ts';

type StageLimits = { readonly stages: ReadonlyMap<string, number>; readonly perSecond: number };

/** Bare-SQL latencies (p50) at `clients`, mapped to the stages they bound. */
async function stageLimits(clients: number, seconds: number): Promise<StageLimits> {
  return withScratchDatabase('stage_limits', async (url) => {
    const pool = createPool(url, servicePoolSize);
    try {
      await migrate(pool);
      const insert = await insertEventLimit(pool, clients, seconds);
      const readModel = await insertReadModelLimit(pool, clients, seconds);
      const both = await appendWithReadModelLimit(pool, clients, seconds);
      const select = await pointSelectLimit(pool, clients, seconds);
      const stages = new Map<string, number>([
        ['stream read', select.p50Ms],
        ['append transaction', insert.p50Ms],
        ['  append: insert events', insert.p50Ms],
        ['  append: read-model write', readModel.p50Ms],
        ['projector batch transaction', readModel.p50Ms],
        ['  batch: read-model write', readModel.p50Ms],
        ['read back', select.p50Ms],
        ['HTTP client latency', both.p50Ms],
      ]);
      return { stages, perSecond: both.perSecond };
    } finally {
      await pool.end();
    }
  });
}

/**
 * `npm run bench -- stages`: where a create's time goes. The all-in-one service runs in
 * this process; every SQL statement is traced and laid on the timeline of the write it
 * belongs to (write-timeline.ts, classes in statement-classes.ts), at 1 and 16 clients.
 */
export async function stagesBenchmark(scale: number): Promise<void> {
  const seconds = Math.max(3, 10 * scale);
  const limits = new Map<number, StageLimits>();
  for (const clients of [1, 16]) limits.set(clients, await stageLimits(clients, Math.max(1, 2 * scale)));

  await withScratchDatabase('stages', async (url) => {
    const service = await startInProcess(url);
    const trace = installSqlTrace();
    try {
      await closedLoop(4, Math.max(1, 2 * scale), async () => void (await createAgency(service.url, service.token)));
      for (const clients of [1, 16]) {
        const writes: WriteRecord[] = [];
        let failures = 0;
        trace.start();
        const run = await closedLoop(clients, seconds, async () => {
          const sent = performance.now();
          const { status, id } = await createAgency(service.url, service.token);
          if (status !== 201 || !id) {
            failures += 1;
            return;
          }
          writes.push({ id, sent, answered: performance.now() });
        });
        trace.stop();
        // Let statements still in flight (a projector batch, a waiter poll) finish before reading the trace.
        await new Promise((resolve) => setTimeout(resolve, 300));
        report(clients, run.seconds, writes, failures, trace.statements, limits.get(clients));
      }
    } finally {
      trace.uninstall();
      await service.stop();
    }
  });
}

function report(clients: number, seconds: number, writes: readonly WriteRecord[], failures: number, statements: Parameters<typeof writeTimelines>[0], limits: StageLimits | undefined): void {
  const { stages, all } = writeTimelines(statements, writes);
  const names: string[] = [];
  for (const s of stages) for (const name of s.keys()) if (!names.includes(name)) names.push(name);
  const rows: Cell[][] = orderStages(names).map((name) => {
    const values = stages.flatMap((s) => (s.has(name) ? [s.get(name) ?? 0] : []));
    const { p50, p99 } = spread(values);
    const limit = limits?.stages.get(name);
    return [name, p50, p99, values.length, limit, ratio(p50, limit)];
  });
  const rate = writes.length / seconds;
  printTable(
    `Stages of POST /api/funding-agencies/, ${clients} client${clients > 1 ? 's' : ''}, ${writes.length} creates in ${seconds.toFixed(1)} s: ${rate.toFixed(0)}/s (limit: append + read-model transaction ${limits?.perSecond.toFixed(0) ?? '—'}/s, ratio ${ratio(rate, limits?.perSecond)}), ${failures} failed`,
    ['stage (ms per write)', 'p50', 'p99', 'writes', 'limit p50', 'ratio'],
    rows,
  );
  const byClass = new Map<string, { part: string; count: number; ms: number[] }>();
  for (const s of all) {
    const entry = byClass.get(s.cls.name) ?? { part: s.cls.part, count: 0, ms: [] };
    entry.count += 1;
    entry.ms.push(s.end - s.start);
    byClass.set(s.cls.name, entry);
  }
  const perWrite = (n: number) => (writes.length > 0 ? n / writes.length : Number.NaN);
  const classRows: Cell[][] = [...byClass].map(([name, e]) => [name, e.part, perWrite(e.count), perWrite(e.ms.reduce((a, b) => a + b, 0)), spread(e.ms).p50]);
  classRows.push(['all statements', '', perWrite(all.length), perWrite(all.reduce((a, s) => a + (s.end - s.start), 0)), spread(all.map((s) => s.end - s.start)).p50]);
  printTable(`SQL statements during the run, ${clients} client${clients > 1 ? 's' : ''} (background polls included)`, ['class', 'part', 'per write', 'ms per write', 'p50 ms each'], classRows);
  const others = [...new Set(all.filter((s) => s.cls.name === 'other').map((s) => s.text.replace(/\s+/g, ' ').slice(0, 100)))];
  if (others.length > 0) console.log(`  unclassified: ${others.slice(0, 8).join(' | ')}`);
}
