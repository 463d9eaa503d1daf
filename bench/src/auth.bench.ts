import { createLogger, loadConfig } from '@cairn/platform';
import { openResources, serve, tokensIssue, usersCreate } from '@cairn/cli';
import { timed, withScratchDatabase } from './scratch-database.ts';

async function run(count: number, concurrency: number, fetchOne: () => Promise<Response>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next += 1;
        const response = await fetchOne();
        if (!response.ok) throw new Error(`unexpected ${response.status}`);
        await response.arrayBuffer();
      }
    }),
  );
}

/**
 * Authenticated requests per second on the all-in-one service, and how many database
 * transactions a bearer token check costs once the token is known (the hot path).
 */
export async function authBenchmark(scale: number): Promise<void> {
  await withScratchDatabase('http', async (url) => {
    const port = 18_000 + Math.floor(Math.random() * 1000);
    const config = loadConfig({ DATABASE_URL: url, PORT: String(port), CAIRN_LOG_LEVEL: 'silent' });
    const resources = await openResources(config, { logger: createLogger('silent'), queryTimeout: false });
    const running = await serve(resources, 'all', port);
    try {
      await usersCreate(resources, ['--email', 'bench@example.org', '--name', 'Bench', '--system-admin']);
      const token = (await tokensIssue(resources, ['--user', 'bench@example.org'])).access_token;
      const headers = { Authorization: `Bearer ${token}` };
      const created = await fetch(`${running.url}/api/funding-agencies/`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Bench agency' }) });
      const { id } = (await created.json()) as { id: string };
      const count = 2000 * scale;
      console.log('\nHTTP, all-in-one, bearer token (loopback, client in the same process)');
      await timed('GET /api/auth/session/ (authentication only), 1 client', count, 'requests', () => run(count, 1, () => fetch(`${running.url}/api/auth/session/`, { headers })));
      // Every query of the service's pool during the run, background work included.
      let queries = 0;
      const query = resources.pool.query.bind(resources.pool);
      resources.pool.query = ((...args: Parameters<typeof query>) => {
        queries += 1;
        return query(...args);
      }) as typeof query;
      await timed('GET /api/auth/session/, 8 concurrent clients', count, 'requests', () => run(count, 8, () => fetch(`${running.url}/api/auth/session/`, { headers })));
      resources.pool.query = query;
      console.log(`  service queries per authenticated request: ${(queries / count).toFixed(3)} (${queries} in all, background polls included)`);
      await timed('GET /api/funding-agencies/{id}/, 8 concurrent clients', count, 'requests', () => run(count, 8, () => fetch(`${running.url}/api/funding-agencies/${id}/`, { headers })));
      let i = 0;
      await timed('POST /api/funding-agencies/ (write + read-your-write), 4 clients', Math.floor(count / 10), 'requests', () =>
        run(Math.floor(count / 10), 4, () => fetch(`${running.url}/api/funding-agencies/`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: `Agency ${(i += 1)}` }) })),
      );
    } finally {
      await running.stop();
      await resources.close();
    }
  });
}
