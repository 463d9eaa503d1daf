import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openResources, serve } from '@cairn/cli';
import { createLogger, loadConfig } from '@cairn/platform';
import { withScratchDatabase } from './scratch-database.ts';
import { issueBenchToken } from './service-client.ts';
import { num, printTable, type Cell } from './table.ts';

/** A receiver on 127.0.0.1 that counts POSTs and answers 204 after `delayMs`. */
async function startReceiver(delayMs: number): Promise<{ url: string; count: () => number; close(): Promise<void> }> {
  let received = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      setTimeout(() => res.writeHead(204).end(), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    count: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function call(base: string, token: string, method: string, path: string, body?: unknown): Promise<{ id: string }> {
  const response = await fetch(`${base}${path}`, { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: body === undefined ? null : JSON.stringify(body) });
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: string };
}

type Scenario = { readonly name: string; readonly fast: number; readonly slow: number; readonly slowDelayMs: number };

/**
 * `npm run bench -- webhooks` (issue 28): deliveries per second from one all-in-one process
 * (in-process jobs, no Redis; CAIRN_WEBHOOK_CONCURRENCY delivery slots) to local receivers,
 * and what slow receivers cost the others.
 * Each scenario's subscriptions are created paused, the changes written (asset creations,
 * 8 writers), then all are resumed at once: the time until every fast receiver has every
 * change is the figure; receivers in the same process as the service.
 */
export async function webhooksBenchmark(scale: number): Promise<void> {
  const changes = Math.max(50, Math.round(500 * scale));
  const scenarios: Scenario[] = [
    { name: '4 fast receivers', fast: 4, slow: 0, slowDelayMs: 0 },
    { name: '4 fast + 2 slow (1 s per answer)', fast: 4, slow: 2, slowDelayMs: 1000 },
  ];
  await withScratchDatabase('webhooks', async (databaseUrl) => {
    const port = 19_000 + Math.floor(Math.random() * 1000);
    const config = loadConfig({
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      CAIRN_LOG_LEVEL: 'silent',
      CAIRN_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      CAIRN_WEBHOOK_ALLOW_HTTP: 'true',
      CAIRN_WEBHOOK_POLL_MS: '50',
    });
    const resources = await openResources(config, { logger: createLogger('silent'), queryTimeout: false });
    const running = await serve(resources, 'all', port);
    const base = running.url ?? `http://127.0.0.1:${port}`;
    const token = await issueBenchToken(resources);
    const rows: Cell[][] = [];
    try {
      for (const scenario of scenarios) {
        const receivers = [
          ...(await Promise.all(Array.from({ length: scenario.fast }, () => startReceiver(0)))).map((r) => ({ ...r, slow: false })),
          ...(await Promise.all(Array.from({ length: scenario.slow }, () => startReceiver(scenario.slowDelayMs)))).map((r) => ({ ...r, slow: true })),
        ];
        const hooks: string[] = [];
        for (const r of receivers) {
          const hook = await call(base, token, 'POST', '/api/webhooks/', { url: r.url, kinds: ['asset'] });
          await call(base, token, 'PATCH', `/api/webhooks/${hook.id}/`, { status: 'paused' });
          hooks.push(hook.id);
        }
        let next = 0;
        const writer = async () => {
          while (next < changes) {
            next += 1;
            await call(base, token, 'POST', '/api/assets/', { title: `Bench ${next}` });
          }
        };
        await Promise.all(Array.from({ length: 8 }, writer));
        const started = performance.now();
        await Promise.all(hooks.map((id) => call(base, token, 'PATCH', `/api/webhooks/${id}/`, { status: 'active' })));
        const fast = receivers.filter((r) => !r.slow);
        const doneAt = new Map<string, number>();
        while (doneAt.size < fast.length && performance.now() - started < 600_000) {
          for (const r of fast) if (!doneAt.has(r.url) && r.count() >= changes) doneAt.set(r.url, (performance.now() - started) / 1000);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const seconds = Math.max(...doneAt.values());
        const delivered = receivers.reduce((n, r) => n + r.count(), 0);
        const slowDelivered = receivers.filter((r) => r.slow).reduce((n, r) => n + r.count(), 0);
        rows.push([scenario.name, changes, delivered, num(seconds, 2), num((fast.length * changes) / seconds, 0), num(Math.min(...doneAt.values()), 2), scenario.slow > 0 ? slowDelivered : '']);
        for (const id of hooks) await call(base, token, 'DELETE', `/api/webhooks/${id}/`).catch(() => undefined);
        for (const r of receivers) await r.close();
      }
    } finally {
      await running.stop();
      await resources.close();
    }
    printTable(`Webhook deliveries (in-process jobs, ${config.webhooks.concurrency} delivery slots; receivers in the same process)`, ['scenario', 'changes', 'POSTs', 'fast done (s)', 'fast deliveries/s', 'first fast done (s)', 'slow POSTs by then'], rows);
  });
}
