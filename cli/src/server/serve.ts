import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { startProjector, type Projector } from '@cairn/projections';
import { startAuthPurge } from '@cairn/platform';
import { startWorkers, type Workers } from '@cairn/workers';
import type { Resources } from '../runtime/resources.ts';
import { createApp, type HttpRole } from './create-app.ts';

export type Role = HttpRole | 'projector' | 'worker';
export const roles: readonly Role[] = ['all', 'command', 'query', 'projector', 'worker'];

export type Running = { readonly url: string | null; stop(): Promise<void> };

/**
 * `all` is the whole service in one process on one port: both APIs, the projector and the
 * workers. Each other role runs one part alone; see README "Deployment shapes".
 */
export async function serve(resources: Resources, role: Role, port = resources.config.port): Promise<Running> {
  const { config, logger } = resources;
  let projector: Projector | null = null;
  let workers: Workers | null = null;
  let server: Server | null = null;

  if (role === 'all' || role === 'projector') {
    projector = await startProjector({ db: resources.db, eventStore: resources.eventStore, projections: resources.projections.async, inline: resources.projections.inline, logger, databaseUrl: resources.databaseUrl });
  }
  let stopPurge: (() => void) | null = null;
  if (role === 'all' || role === 'worker') {
    workers = await startWorkers({ redisUrl: config.redisUrl, handlers: {}, logger });
    stopPurge = startAuthPurge(resources.pool, logger);
  }
  let url: string | null = null;
  if (role === 'all' || role === 'command' || role === 'query') {
    const app = createApp(resources, role);
    server = createServer(app);
    await new Promise<void>((resolve, reject) => {
      server?.once('error', reject);
      server?.listen(port, config.host, () => resolve());
    });
    const address = server.address() as AddressInfo;
    url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${address.port}`;
  }
  logger.info('cairn started', { role, url, eventStore: resources.eventStore.kind, jobs: workers?.mode ?? null });

  return {
    url,
    async stop() {
      if (server) {
        server.closeIdleConnections();
        await new Promise<void>((resolve) => server?.close(() => resolve()));
      }
      stopPurge?.();
      await projector?.stop();
      await workers?.stop();
    },
  };
}
