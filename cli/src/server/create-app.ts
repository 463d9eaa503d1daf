import { commandOperations, createUpstreamProvider, interactionRoutes, newUserAllocation, signOutRoute, upstreamRoutes, type SignInDeps } from '@cairn/command-api';
import { anonymousBudget, uploadLinkKey, createAuthenticator, credentialsStillHold, createIdempotencyStore, errorHandler, oauthRequestGuards, geoServiceFromConfig, httpErrors, messagePage, mountOperations, pageSecurityHeaders, unmatchedRoutes } from '@cairn/platform';
import { allContracts } from '@cairn/contract';
import { ChangeHub, createCostlyReads, KeptViewerFacts, mountApiDocs, queryOperations, ReadCache } from '@cairn/query-api';
import express, { type Express } from 'express';
import type { Resources } from '../runtime/resources.ts';
import { anonymousRoutes } from './anonymous-routes.ts';
import { securityHeaders } from './security-headers.ts';
import { mountOperationalEndpoints, observeRequests } from './operational-endpoints.ts';

export type HttpRole = 'all' | 'command' | 'query';

/**
 * The HTTP application of one role. `command` serves the writes and the OAuth server,
 * `query` the reads and the API description, `all` both.
 */
export function createApp(resources: Resources, role: HttpRole): Express {
  const { config, pool, oauth, waiter, db, eventStore, logger, sessions, cookie, rateLimiter, authCache, stores, contentJobs } = resources;
  // Projects' geographic restriction (docs/projects.md): the country database is read once here.
  const geo = geoServiceFromConfig(config, logger);
  // New users' storage (docs/storage.md): at an upstream sign-in's registration, or a first upload.
  const grantsNewUsers = newUserAllocation(db, config.storage.defaultAllocation);
  const signIn: SignInDeps = {
    pool,
    oauth,
    sessions,
    cookie,
    rateLimiter,
    eventStore,
    logger,
    limits: config.signIn,
    // Behind the trusted proxies (CAIRN_TRUSTED_PROXIES) the forwarded address counts.
    clientAddress: (req) => geo.clientAddress(req)?.text ?? 'unknown',
    publicUrl: config.publicUrl,
    upstream: config.upstream ? createUpstreamProvider(config.upstream) : null,
    awaitUsers: async (position) => {
      if (!(await waiter.waitFor(position, ['identity'], config.consistencyTimeoutMs, { committed: true }))) throw new Error('the identity read model did not catch up');
    },
    newUserAllocation: grantsNewUsers,
  };
  const app = express();
  // A database outage is 503 with two log lines, not a 500 and a stack trace per request;
  // the tracker is the process's, so the OAuth server's failures count in the same outage.
  const { outage } = resources;
  app.disable('x-powered-by');
  // No ETag: hashing every response body costs more than the conditional GETs it would save (docs/http.md).
  app.set('etag', false);
  app.set('trust proxy', false);
  app.set('query parser', 'simple');
  app.use(observeRequests(resources));
  // Before the probes, so that their answers carry the headers too.
  app.use(securityHeaders(config.publicUrl));
  mountOperationalEndpoints(app, resources);
  // Routes that need no token: bounded parameters and a budget per client address (docs/sign-in.md).
  app.use(
    anonymousBudget({
      rateLimiter,
      clientAddress: (req) => geo.clientAddress(req),
      isAnonymous: anonymousRoutes(allContracts),
      requestsPerMinute: config.signIn.maxAnonymousRequestsPerMinute,
      startsPerMinute: config.signIn.maxOAuthStartsPerMinute,
    }),
  );

  if (role !== 'query') {
    // The OAuth server reads its own bodies: it sits before any parser. Its endpoint
    // addresses are built from the request, so they are pinned to the public URL here.
    const oauthCallback = oauth.provider.callback();
    const publicUrl = new URL(config.publicUrl);
    app.use(oauthRequestGuards(oauth.apiResource));
    app.use(interactionRoutes(signIn));
    app.use(upstreamRoutes(signIn));
    // RFC 8628 5.1: user codes are short, so their entry is rate limited per address.
    app.post('/oauth/device', (req, res, next) => {
      rateLimiter
        .hit(`device-code:address:${signIn.clientAddress(req)}`, 10, 60)
        .then((state) => {
          if (state.blocked) return next(httpErrors.tooManyRequests(state.retryAfterSeconds));
          // A code posted without the page's session (oidc-provider would fail on it with a 500).
          if (!/(?:^|;\s*)_session=/.test(req.headers.cookie ?? '')) {
            res.status(400).set(pageSecurityHeaders).type('html').send(messagePage('Connect a device', 'Open the code page first, then enter the code shown on your device.'));
            return;
          }
          next();
        }, next);
    });
    app.use((req, res, next) => {
      if (!req.path.startsWith('/oauth/') && !req.path.startsWith('/.well-known/')) return next();
      req.headers.host = publicUrl.host;
      req.headers['x-forwarded-host'] = publicUrl.host;
      req.headers['x-forwarded-proto'] = publicUrl.protocol.replace(':', '');
      oauthCallback(req, res);
    });
  }
  if (role !== 'command') mountApiDocs(app, config.publicUrl);

  // Per process: each query process keeps what it answered under the current snapshot (docs/read-cache.md).
  const readCache = role !== 'command' && config.readCacheMb > 0 ? new ReadCache(config.readCacheMb * 1_048_576) : undefined;
  if (readCache && !resources.metrics.registry.getSingleMetric('cairn_read_cache_lookups')) {
    resources.metrics.gauge('cairn_read_cache_lookups', 'Asset and collection reads answered from the read cache (hit) or computed (miss) since the process started.', ['outcome'], async (set) => {
      set({ outcome: 'hit' }, readCache.hits);
      set({ outcome: 'miss' }, readCache.misses);
    });
  }
  // Per process too: each keeps its callers' listing facts, checked by every statement using them (docs/assets.md).
  const viewerFacts = new KeptViewerFacts(role !== 'command' ? config.viewerFactsSeconds : 0);
  if (role !== 'command' && !resources.metrics.registry.getSingleMetric('cairn_viewer_facts_lookups')) {
    resources.metrics.gauge('cairn_viewer_facts_lookups', "Asset listings and queries by whether the caller's kept facts held (held), had changed and were read again (stale), or were read for want of kept ones (read), since the process started.", ['outcome'], async (set) => {
      for (const [outcome, n] of Object.entries(viewerFacts.counts)) set({ outcome }, n);
    });
  }
  const authenticate = createAuthenticator({ pool, oauth, cache: authCache, sessions, cookie });
  // One shared reader of the log per query app for the change feed's streams; serve's stop ends them (docs/changes.md).
  const changeHub = role !== 'command' ? new ChangeHub({ db, eventStore, settings: config.changes, logger }) : undefined;
  app.locals['changeHub'] = changeHub;
  const operations = [
    ...(role !== 'query' ? [...commandOperations({
            eventStore,
            db,
            waiter,
            consistencyTimeoutMs: config.consistencyTimeoutMs,
            geo,
            storage: {
              stores,
              uploadLimitBytes: config.storage.uploadLimitBytes,
              idleTimeoutMs: config.storage.streamIdleTimeoutMs,
              extractionEnabled: config.storage.extractionEnabled,
              extractNow: contentJobs.extractNow,
              removeContent: contentJobs.removeContent,
              newUserAllocation: grantsNewUsers,
              uploads: {
                publicUrl: config.publicUrl,
                linkKey: uploadLinkKey(resources.downloadKey),
                expirySeconds: config.storage.uploadExpirySeconds,
                partUrlTtlSeconds: config.storage.partUrlTtlSeconds,
                maxOpenUploads: config.storage.maxOpenUploads,
                endUpload: contentJobs.endUpload,
              },
            },
            webhooks: { policy: resources.webhooks.policy, key: resources.webhooks.key, maxPerOwner: resources.webhooks.maxPerOwner },
          }), signOutRoute(signIn)] : []),
    ...(role !== 'command' ? queryOperations({
          db,
          publicUrl: config.publicUrl,
          geo,
          queryScanCap: config.queryScanCap,
          listingWindowRows: config.listingWindowRows,
          listingWalkRows: config.listingWalkRows,
          viewerFacts,
          // Per app, as the read cache: the bound on one caller's costly reads is per process.
          costlyReads: createCostlyReads({ db: resources.costlyDb, ...config.costlyReads }),
          readCache,
          audit: { eventStore, pool },
          changes: { eventStore, hub: changeHub ?? new ChangeHub({ db, eventStore, settings: config.changes, logger }), logger, credentialsHold: (headers) => credentialsStillHold(authenticate, headers) },
          storage: {
            stores,
            downloadKey: resources.downloadKey,
            downloadUrlTtlSeconds: config.storage.downloadUrlTtlSeconds,
            uploadLinkKey: uploadLinkKey(resources.downloadKey),
            partUrlTtlSeconds: config.storage.partUrlTtlSeconds,
          },
        }) : []),
  ];
  mountOperations(app, operations, {
    authenticate,
    trustedOrigins: new Set([new URL(config.publicUrl).origin, ...config.trustedOrigins]),
    waiter,
    consistencyTimeoutMs: config.consistencyTimeoutMs,
    bodyLimitBytes: config.bodyLimitBytes,
    // A consistency token beyond the log's head is refused at once (docs/http.md).
    headPosition: () => eventStore.headPosition(),
    idempotency: createIdempotencyStore(pool, { findEvents: eventStore.kind === 'postgres' }),
    streamIdleTimeoutMs: config.storage.streamIdleTimeoutMs,
    // Reads of read models on the hot standbys (docs/consistency.md, "Standbys").
    standbys: resources.standbys && role !== 'command' ? { router: resources.standbys, waitMs: config.standbys.waitMs } : undefined,
  });
  app.locals['operationIds'] = operations.map((o) => o.contract.operationId);
  app.locals['readCache'] = readCache;
  app.locals['viewerFacts'] = viewerFacts;
  app.use(unmatchedRoutes(allContracts, operations.map((o) => o.contract)));
  app.use(errorHandler(logger, config.bodyLimitBytes, outage));
  return app;
}
