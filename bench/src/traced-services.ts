import { openResources, serve, type Resources } from '@cairn/cli';
import { createLogger, loadConfig } from '@cairn/platform';
import { benchPublicUrl } from './cairn-process.ts';
import { keepAliveClient } from './keep-alive-client.ts';
import { installSqlTrace, type SqlTrace } from './sql-trace.ts';

export type TracedServices = {
  readonly resources: Resources;
  readonly reads: ReturnType<typeof keepAliveClient>;
  readonly writes: ReturnType<typeof keepAliveClient>;
  readonly trace: SqlTrace;
};

/**
 * The query and command services in this process, apart (so no projector's or worker's
 * background statements mix in), with every statement they send traced, for `work` to
 * capture what each request runs; torn down after. No read cache: the statements replayed
 * as the bare SQL must be those a read runs (docs/read-cache.md).
 */
export async function withTracedServices<T>(url: string, work: (services: TracedServices) => Promise<T>): Promise<T> {
  const config = loadConfig({ DATABASE_URL: url, CAIRN_LOG_LEVEL: 'silent', CAIRN_PUBLIC_URL: benchPublicUrl, CAIRN_READ_CACHE_MB: '0' });
  const resources = await openResources(config, { logger: createLogger('silent'), queryTimeout: false });
  const port = 19_500 + Math.floor(Math.random() * 400);
  const queryServer = await serve(resources, 'query', port);
  const commandServer = await serve(resources, 'command', port + 1);
  const reads = keepAliveClient(queryServer.url ?? `http://127.0.0.1:${port}`, 4);
  const writes = keepAliveClient(commandServer.url ?? `http://127.0.0.1:${port + 1}`, 4);
  const trace = installSqlTrace();
  try {
    return await work({ resources, reads, writes, trace });
  } finally {
    trace.uninstall();
    reads.close();
    writes.close();
    await queryServer.stop();
    await commandServer.stop();
    await resources.close();
  }
}
