import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { createReadDb, startProjector, type Projector } from '@cairn/projections';
import { createPool, startAuthPurge } from '@cairn/platform';
import type pg from 'pg';
import { startWorkers, type Workers } from '@cairn/workers';
import { ensureDefaultRepository } from '../commands/repositories.command.ts';
import { ensureDocsClient } from '../commands/docs-client.ts';
import type { Resources } from '../runtime/resources.ts';
import { explainListenError, StartError } from '../runtime/start-errors.ts';
import type { ChangeHub } from '@cairn/query-api';
import { createApp,} from './create-app.ts';
import { createOpsApp } from './ops-app.ts';
import { rawSecurityHeaders } from './security-headers.ts';

import type { Role } from './roles.ts';

export { roles, type Role } from './roles.ts';

/** `opsUrl`: the operations port's address (CAIRN_OPS_PORT), null when it is not configured. */
export type Running = { readonly url: string | null; readonly opsUrl: string | null; stop(): Promise<void> };

/**
 * `all` is the whole service in one process on one port: both APIs, the projector and the
 * workers. Each other role runs one part alone; see README "Deployment shapes".
 */
export async function serve(resources: Resources, role: Role, port = resources.config.port): Promise<Running> {
  const { config, logger } = resources;
  let projector: Projector | null = null;
  let workers: Workers | null = null;
  let webhookScheduler: { stop(): Promise<void> } | null = null;
  let server: Server | null = null;
  let projectorPool: pg.Pool | null = null;

  if (role === 'all' || role === 'projector') {
    // Catch-ups and rebuilds (whole-table copies, index builds) may run long: the projector
    // writes through a pool of its own, without the serving pool's statement timeout.
    const pool = createPool(resources.databaseUrl, 10, { connectTimeoutMs: config.database.connectTimeoutMs });
    projectorPool = pool;
    projector = await startProjector({ db: createReadDb(pool), eventStore: resources.eventStore, projections: resources.projections.async, inline: resources.projections.inline, logger, databaseUrl: resources.databaseUrl }).catch(async (error: unknown) => {
      await pool.end();
      throw error;
    });
  }
  if (role === 'all' || role === 'command') await ensureDefaultRepository(resources);
  if (role === 'all' || role === 'command') await ensureDocsClient(resources);
  if (role === 'all' || role === 'worker') {
    workers = await startWorkers({
      redisUrl: config.redisUrl,
      pool: resources.pool,
      handlers: resources.jobHandlers,
      lanes: [resources.webhookJobs.lane],
      policy: config.jobs,
      logger,
      queueName: config.jobs.queueName,
      onJob: (job, outcome) => resources.metrics.jobRuns.inc({ job, outcome }),
    });
    // Beside the workers that run what it schedules (docs/changes.md, "Webhooks").
    webhookScheduler = resources.webhookJobs.startScheduler();
  }
  let url: string | null = null;
  let opsServer: Server | null = null;
  let opsUrl: string | null = null;
  let changeHub: ChangeHub | undefined;
  try {
    if (role === 'all' || role === 'command' || role === 'query') {
      // A client that sends half a request head, or trickles a body, is cut off within these
      // bounds (docs/http.md); Node checks them every connectionsCheckingInterval.
      const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs } = config.http;
      const app = createApp(resources, role);
      changeHub = app.locals['changeHub'] as ChangeHub | undefined;
      server = createServer({ headersTimeout: headersTimeoutMs, requestTimeout: requestTimeoutMs, keepAliveTimeout: keepAliveTimeoutMs, connectionsCheckingInterval: Math.min(1000, headersTimeoutMs) }, app);
      server.on('clientError', answerClientError);
      url = await listen(server, config.host, port);
    }
    // Every role, the projector and the worker too: their metrics and readiness matter as much.
    if (config.opsPort !== undefined) {
      opsServer = createServer(createOpsApp(resources));
      opsUrl = await listen(opsServer, config.host, config.opsPort);
    }
  } catch (error) {
    if (server?.listening) server.close();
    await projector?.stop();
    await projectorPool?.end();
    await webhookScheduler?.stop();
    await workers?.stop();
    throw error;
  }
  // Once the port is had: a start that fails there leaves no purge running on a closing pool.
  // Every process that serves the OAuth server purges what anonymous visitors made it store,
  // within a minute or so of its expiry (docs/sign-in.md); the workers too, as before.
  const purges = role === 'all' || role === 'command' || role === 'worker';
  const counterWindowSeconds = Math.max(60, config.signIn.failureWindowSeconds);
  const stopPurge = purges ? startAuthPurge(resources.pool, logger, config.signIn.purgeIntervalSeconds * 1000, { counterWindowSeconds }) : null;
  logger.info('cairn started', { role, url, opsUrl, eventStore: resources.eventStore.kind, jobs: workers?.mode ?? null });

  return {
    url,
    opsUrl,
    async stop() {
      // Graceful (docs/observability.md): stop accepting, let in-flight requests and jobs
      // finish within the bound, then close what is left; the projector gives its locks back.
      const bound = config.shutdownTimeoutMs;
      if (server) {
        const open = server;
        const closed = new Promise<void>((resolve) => open.close(() => resolve()));
        // Event streams never finish on their own: they end now, and their clients resume elsewhere with Last-Event-ID.
        changeHub?.close();
        open.closeIdleConnections();
        const force = setTimeout(() => open.closeAllConnections(), bound);
        await closed;
        clearTimeout(force);
      }
      stopPurge?.();
      await projector?.stop();
      await projectorPool?.end();
      await webhookScheduler?.stop();
      if (workers) {
        const stopping = workers.stop();
        const late = await Promise.race([stopping.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), bound).unref())]);
        // A job still running is re-delivered elsewhere: its lease expires, or BullMQ finds it stalled.
        if (late) logger.warn('jobs still running at shutdown were left to be taken up again', { timeoutMs: bound });
      }
      // Last: probes and scrapers see the process until it is gone.
      if (opsServer) {
        const open = opsServer;
        const closed = new Promise<void>((resolve) => open.close(() => resolve()));
        open.closeAllConnections();
        await closed;
      }
    },
  };
}

async function listen(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => {
      const line = explainListenError(error, host, port);
      reject(line ? new StartError(line) : error);
    });
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

/**
 * A request Node's parser refuses before express sees it (headers over 16 KiB, a malformed
 * request line, a head not complete within CAIRN_HEADERS_TIMEOUT_MS) still gets the error
 * shape of DECISIONS.md 1 and the security headers, then the connection closes.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // A request timeout may strike while an answer is being sent (a slow upload's): writing
  // another answer then would corrupt it; Node's own handler checks the same field.
  const inFlight: unknown = Reflect.get(socket, '_httpMessage');
  const answering = typeof inFlight === 'object' && inFlight !== null && 'headersSent' in inFlight && inFlight.headersSent === true;
  if (!socket.writable || answering) {
    socket.destroy();
    return;
  }
  const [status, reason, code, detail] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'request_header_fields_too_large', 'The request line and headers may take at most 16 KiB.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'request_timeout', 'The request was not received in time.']
        : [400, 'Bad Request', 'bad_request', 'The request could not be parsed as HTTP.'];
  const body = JSON.stringify({ status, code, detail });
  const headers = Object.entries(rawSecurityHeaders).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}Connection: close\r\n\r\n${body}`);
}
