import { openResources, serve, tokensIssue, usersCreate } from '@cairn/cli';
import { createLogger, loadConfig } from '@cairn/platform';

export type InProcessService = {
  readonly url: string;
  readonly token: string;
  readonly resources: Awaited<ReturnType<typeof openResources>>;
  stop(): Promise<void>;
};

/** The all-in-one service in this process on `databaseUrl`, with a system administrator's bearer token. */
export async function startInProcess(databaseUrl: string): Promise<InProcessService> {
  const port = 18_000 + Math.floor(Math.random() * 1000);
  const config = loadConfig({ DATABASE_URL: databaseUrl, PORT: String(port), CAIRN_LOG_LEVEL: 'silent' });
  const resources = await openResources(config, { logger: createLogger('silent'), queryTimeout: false });
  const running = await serve(resources, 'all', port);
  const token = await issueBenchToken(resources);
  return {
    url: running.url ?? `http://127.0.0.1:${port}`,
    token,
    resources,
    async stop() {
      await running.stop();
      await resources.close();
    },
  };
}

/** Creates the bench user (a system administrator) and issues it a bearer token. */
export async function issueBenchToken(resources: Awaited<ReturnType<typeof openResources>>): Promise<string> {
  await usersCreate(resources, ['--email', 'bench@example.org', '--name', 'Bench', '--system-admin']);
  return (await tokensIssue(resources, ['--user', 'bench@example.org', '--ttl', '86400'])).access_token;
}

let created = 0;

/** POST /api/funding-agencies/ with fetch; the created agency's id and the consistency token. */
export async function createAgency(url: string, token: string): Promise<{ status: number; id: string | null; consistency: string | null }> {
  const response = await fetch(`${url}/api/funding-agencies/`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: `Bench agency ${(created += 1)}` }),
  });
  const body = (await response.json().catch(() => null)) as { id?: string } | null;
  return { status: response.status, id: body?.id ?? null, consistency: response.headers.get('x-consistency-token') };
}
