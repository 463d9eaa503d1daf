import { errorHandler, httpErrors } from '@cairn/platform';
import express, { type Express } from 'express';
import type { Resources } from '../runtime/resources.ts';
import { mountOperationalEndpoints } from './operational-endpoints.ts';
import { securityHeaders } from './security-headers.ts';

/**
 * The operations port (CAIRN_OPS_PORT): /healthz, /readyz with each check, and /metrics,
 * for the platform's probes and scrapers on a port that is not the API's
 * (docs/observability.md, "The operations port"). Every role serves it when configured,
 * the projector and the worker too.
 */
export function createOpsApp(resources: Resources): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(securityHeaders(resources.config.publicUrl));
  mountOperationalEndpoints(app, resources, { details: true });
  app.use((_req, _res, next) => next(httpErrors.notFound()));
  app.use(errorHandler(resources.logger, resources.config.bodyLimitBytes, resources.outage));
  return app;
}
