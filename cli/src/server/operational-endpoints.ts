import { randomUUID } from 'node:crypto';
import type { Express, RequestHandler } from 'express';
import { Redis } from 'ioredis';
import pino from 'pino';
import { pinoHttp } from 'pino-http';
import { lagSeconds } from '../runtime/gauges.ts';
import type { Resources } from '../runtime/resources.ts';

const probeTimeoutMs = 2000;

function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  return Promise.race([work, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} did not answer within ${probeTimeoutMs} ms`)), probeTimeoutMs).unref())]);
}

/**
 * Request logs (pino-http) with the request id the operations use (X-Request-Id, or one made
 * here), and request metrics by route and status. Mounted first: every request counts.
 */
export function observeRequests(resources: Resources): RequestHandler[] {
  const { metrics, logger } = resources;
  const requestLog = pinoHttp({
    // pino-http's own pino types differ in a generic only.
    logger: (logger.pino ?? pino({ level: 'silent' })) as never,
    genReqId: (req) => String(req.headers['x-request-id']),
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
    serializers: { req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url.split('?')[0] }), res: (res: { statusCode: number }) => ({ status: res.statusCode }) },
  });
  return [
    (req, _res, next) => {
      const given = req.headers['x-request-id'];
      if (typeof given !== 'string' || given.length === 0 || given.length > 200) req.headers['x-request-id'] = randomUUID();
      next();
    },
    requestLog,
    (req, res, next) => {
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        // The route's pattern, not the path: ids would make a label per asset.
        const route = (req.route as { path?: string } | undefined)?.path ?? (res.statusCode === 404 ? 'unmatched' : req.path.startsWith('/oauth/') ? '/oauth/*' : 'other');
        const labels = { method: req.method, route: String(route), status: String(res.statusCode) };
        metrics.httpRequests.inc(labels);
        metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
      });
      next();
    },
  ];
}

/**
 * `GET /healthz` (the process answers) and `GET /readyz` (the database, Redis when
 * configured, and the async read models within their lag bound). On the public port
 * (`details: false`) /readyz answers its status only: load balancers need no more, and its
 * checks name hosts, ports and databases. The operations port (`details: true`,
 * CAIRN_OPS_PORT) adds each check and `GET /metrics` (Prometheus). The gateway routes none
 * of them (deploy/nginx.conf; docs/observability.md).
 */
export function mountOperationalEndpoints(app: Express, resources: Resources, options: { readonly details: boolean } = { details: false }): void {
  const { metrics } = resources;
  app.get('/healthz', (_req, res) => {
    res.status(200).json({ status: 'alive' });
  });
  app.get('/readyz', (_req, res, next) => {
    readiness(resources).then((checks) => {
      const ready = Object.values(checks).every((c) => c === 'ok' || c === 'not configured');
      const status = ready ? 'ready' : 'not ready';
      res.status(ready ? 200 : 503).set('Cache-Control', 'no-store').json(options.details ? { status, checks } : { status });
    }, next);
  });
  if (!options.details) return;
  app.get('/metrics', (_req, res, next) => {
    metrics.registry.metrics().then((text) => {
      res.status(200).set('Content-Type', metrics.registry.contentType).send(text);
    }, next);
  });
}

async function readiness(resources: Resources): Promise<Record<string, string>> {
  const { config, pool } = resources;
  const checks: Record<string, string> = {};
  try {
    await withTimeout(pool.query('select 1'), 'the database');
    checks['database'] = 'ok';
  } catch (error) {
    checks['database'] = (error as Error).message;
  }
  if (config.redisUrl) {
    const redis = new Redis(config.redisUrl, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: probeTimeoutMs });
    redis.on('error', () => undefined);
    try {
      await withTimeout(redis.connect().then(() => redis.ping()), 'Redis');
      checks['redis'] = 'ok';
    } catch (error) {
      checks['redis'] = (error as Error).message;
    } finally {
      redis.disconnect();
    }
  } else checks['redis'] = 'not configured';
  if (checks['database'] !== 'ok') return checks;
  const asyncNames = resources.projections.async.map((p) => p.name);
  if (asyncNames.length === 0) {
    checks['projections'] = 'ok';
    return checks;
  }
  const { rows } = await pool.query<{ name: string; status: string }>('select name, status from projection_checkpoints where name = any($1::text[])', [asyncNames]);
  const failed = rows.filter((r) => r.status === 'failed').map((r) => r.name);
  const lagging: string[] = [];
  if (resources.eventStore.kind === 'postgres') {
    for (const projection of resources.projections.async) {
      if ((await lagSeconds(pool, projection)) > config.readyMaxLagSeconds) lagging.push(projection.name);
    }
  }
  checks['projections'] =
    failed.length > 0 ? `stopped on an event: ${failed.join(', ')}` : lagging.length > 0 ? `more than ${config.readyMaxLagSeconds} s behind: ${lagging.join(', ')}` : 'ok';
  return checks;
}
