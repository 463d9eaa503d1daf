import { commandOperations } from '@cairn/command-api';
import { createAuthenticator, errorHandler, mountOperations, unmatchedRoutes } from '@cairn/platform';
import { mountApiDocs, queryOperations } from '@cairn/query-api';
import express, { type Express } from 'express';
import type { Resources } from '../runtime/resources.ts';

export type HttpRole = 'all' | 'command' | 'query';

/**
 * The HTTP application of one role. `command` serves the writes and the OAuth server,
 * `query` the reads and the API description, `all` both.
 */
export function createApp(resources: Resources, role: HttpRole): Express {
  const { config, pool, oauth, waiter, db, eventStore, logger } = resources;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.set('query parser', 'simple');

  if (role !== 'query') {
    // The OAuth server reads its own bodies: it sits before any parser. Its endpoint
    // addresses are built from the request, so they are pinned to the public URL here.
    const oauthCallback = oauth.provider.callback();
    const publicUrl = new URL(config.publicUrl);
    app.use((req, res, next) => {
      if (!req.path.startsWith('/oauth/') && !req.path.startsWith('/.well-known/')) return next();
      req.headers.host = publicUrl.host;
      req.headers['x-forwarded-host'] = publicUrl.host;
      req.headers['x-forwarded-proto'] = publicUrl.protocol.replace(':', '');
      oauthCallback(req, res);
    });
  }
  if (role !== 'command') mountApiDocs(app, config.publicUrl);

  const operations = [
    ...(role !== 'query' ? commandOperations({ eventStore, db, waiter, consistencyTimeoutMs: config.consistencyTimeoutMs }) : []),
    ...(role !== 'command' ? queryOperations({ db, publicUrl: config.publicUrl }) : []),
  ];
  mountOperations(app, operations, {
    authenticate: createAuthenticator(pool, oauth),
    waiter,
    consistencyTimeoutMs: config.consistencyTimeoutMs,
    bodyLimitBytes: config.bodyLimitBytes,
  });
  app.use(unmatchedRoutes(operations.map((o) => o.contract)));
  app.use(errorHandler(logger, config.bodyLimitBytes));
  return app;
}
