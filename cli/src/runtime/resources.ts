import {
  createAuthCache,
  createRateLimiter,
  createWebSessions,
  sessionCookie,
  type AuthCache,
  type RateLimiter,
  type SessionCookie,
  type WebSessions,
  createConsistencyWaiter,
  createLogger,
  createOAuthServer,
  createPool,
  DatabaseBusyError,
  migrate,
  openEventStore,
  type Config,
  type ConsistencyWaiter,
  type EventStore,
  type Logger,
  type OAuthServer,
  createRepositoryStores,
  loadDownloadKey,
  loadWebhookKey,
  createNetworkList,
  type WebhookTargetPolicy,
  countingAppends,
  countingWaits,
  createMetrics,
  type Metrics,
  type RepositoryStores,
  createOutageTracker,
  type OutageTracker,
  createStandbyRouter,
  type StandbyRouter,
} from '@cairn/platform';
// The content jobs' steps alone: the package's index also loads BullMQ (~90 ms), which only a server's workers use.
import { createContentJobs, type ContentJobs } from '@cairn/workers/content-jobs';
import { createWebhookJobs, type WebhookJobs } from '@cairn/workers/webhook-jobs';
import type { JobHandlers } from '@cairn/workers';
import { readChanges } from '@cairn/query-api/changes';
import type { ChangeKind } from '@cairn/contract';
import { createInlineProjections, createReadDb, findRepository, keepListingPlans, locationOf, projections, splitByLifecycle, type Projection, type ReadDb } from '@cairn/projections';
import type pg from 'pg';
import { freeBytes, startEmbeddedPostgres } from './embedded-postgres.ts';
import { explainDatabaseError, StartError } from './start-errors.ts';
import { registerGauges } from './gauges.ts';

/** Everything a role needs, opened once from the configuration and closed in reverse. */
export type Resources = {
  readonly config: Config;
  readonly logger: Logger;
  readonly databaseUrl: string;
  readonly pool: pg.Pool;
  readonly db: ReadDb;
  /**
   * The costly reads' own connections (docs/asset-query.md, "Cost"): every statement on
   * them is cancelled past `costlyReads.statementTimeoutMs`, and however many run, the
   * connections that plain reads and writes need stay free.
   */
  readonly costlyDb: ReadDb;
  readonly eventStore: EventStore;
  /** Which read models this deployment applies in the appends' transactions, and which a projector follows. */
  readonly projections: { readonly inline: readonly Projection[]; readonly async: readonly Projection[] };
  readonly waiter: ConsistencyWaiter;
  readonly oauth: OAuthServer;
  readonly authCache: AuthCache;
  readonly sessions: WebSessions;
  readonly cookie: SessionCookie;
  readonly rateLimiter: RateLimiter;
  /** This process's metrics (docs/observability.md). */
  readonly metrics: Metrics;
  /** Each storage repository's blob store (docs/storage.md). */
  readonly stores: RepositoryStores;
  /** Signs the service's own fs download links. */
  readonly downloadKey: string;
  /** The content jobs' handlers, and the steps the content routes share with them. */
  readonly contentJobs: ContentJobs;
  /** The webhook deliveries' handlers and their scheduler (docs/changes.md, "Webhooks"). */
  readonly webhookJobs: WebhookJobs;
  /** Every job's handler, for the workers. */
  readonly jobHandlers: JobHandlers;
  /** Where webhooks may be sent, and the key that seals their secrets (docs/changes.md, "Webhooks"). */
  readonly webhooks: { readonly policy: WebhookTargetPolicy; readonly key: Buffer; readonly maxPerOwner: number };
  /** The hot standbys reads of read models go to (DATABASE_READ_URL); absent without them. */
  readonly standbys: StandbyRouter | undefined;
  /** One per process: a database outage is logged once when it starts and once when it ends. */
  readonly outage: OutageTracker;
  close(): Promise<void>;
};

/**
 * A quarter of the main pool, at least 4: room for several callers' costly reads, without
 * starving the database of connections. With 2 of them beside the default main pool of 4 on
 * 2 cores, a lone costly shape ran up to 20 % slower than with 4 (docs/benchmarks.md, thirteenth sitting).
 */
const costlyPoolSize = (poolSize: number) => Math.max(4, Math.ceil(poolSize / 4));

export type ResourceOptions = {
  readonly logger?: Logger;
  /** The main pool's connections to each server; unset: CAIRN_DB_POOL_SIZE (config.database.poolSize). */
  readonly poolSize?: number;
  /**
   * `false` for the command line: its rebuilds and audits may run long, so its statements
   * get no timeout (a server's requests, jobs and probes do; docs/observability.md).
   */
  readonly queryTimeout?: boolean;
};

export async function openResources(config: Config, options: ResourceOptions = {}): Promise<Resources> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const closers: (() => Promise<void>)[] = [];
  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const embedded = await startEmbeddedPostgres(config.dataDir, config.embeddedPgPort, logger);
      closers.push(() => embedded.stop());
      databaseUrl = embedded.url;
    }
    const { connectTimeoutMs, queryTimeoutMs } = config.database;
    // Migrations may wait for another process's and run long: a pool of their own, no statement bound.
    const migrations = createPool(databaseUrl, 1, { connectTimeoutMs });
    try {
      await migrate(migrations);
    } finally {
      await migrations.end();
    }
    const metrics = createMetrics();
    // Each serving pool counts its waits for a connection that ran out (docs/observability.md, "Connections").
    const waitsOf = (name: string) => (busy: boolean) => metrics.poolWaitsRanOut.inc({ pool: name, outcome: busy ? 'busy' : 'no_progress' });
    const poolSize = options.poolSize ?? config.database.poolSize;
    const pool = createPool(databaseUrl, poolSize, { connectTimeoutMs, queryTimeoutMs: options.queryTimeout === false ? undefined : queryTimeoutMs, onWaitRanOut: waitsOf('main') });
    closers.push(() => pool.end());
    keepListingPlans(config.listingPlansKept);
    const db = createReadDb(pool);
    // A pool opens connections when first asked: a process that serves no reads opens none.
    const costlyPool = createPool(databaseUrl, costlyPoolSize(poolSize), { connectTimeoutMs, queryTimeoutMs: config.costlyReads.statementTimeoutMs, onWaitRanOut: waitsOf('costly') });
    closers.push(() => costlyPool.end());
    const costlyDb = createReadDb(costlyPool, 'costly');
    // The standbys' pools mirror the primary's two: a read chosen for a standby takes the same kind there.
    let standbys: StandbyRouter | undefined;
    if (config.standbys.urls.length > 0) {
      const standbyPools = config.standbys.urls.map((url, i) => {
        const name = `standby-${i + 1}`;
        const plain = createPool(url, poolSize, { connectTimeoutMs, queryTimeoutMs, onWaitRanOut: waitsOf(name) });
        const costly = createPool(url, costlyPoolSize(poolSize), { connectTimeoutMs, queryTimeoutMs: config.costlyReads.statementTimeoutMs, onWaitRanOut: waitsOf(`${name}-costly`) });
        closers.push(async () => {
          await plain.end();
          await costly.end();
        });
        return { name, pools: { plain, costly } };
      });
      standbys = await createStandbyRouter({
        primary: { plain: pool, costly: costlyPool },
        standbys: standbyPools,
        maxLagMs: config.standbys.maxLagMs,
        onChange: (name, inRotation, reason) =>
          inRotation ? logger.info('standby in rotation', { standby: name, reason }) : logger.warn('standby out of rotation: its reads go to another standby or the primary', { standby: name, reason }),
      });
      const router = standbys;
      closers.push(() => router.close());
    }
    const lifecycles = splitByLifecycle(projections, config.eventStoreUrl ? 'eventstoredb' : 'postgres', config.projectionMode);
    const inline = lifecycles.inline.length > 0 ? createInlineProjections(lifecycles.inline) : undefined;
    // Announced even with every read model inline: the change feed's streams in query processes follow the log (docs/changes.md).
    const eventStore = countingAppends(openEventStore({ pool, databaseUrl, eventStoreUrl: config.eventStoreUrl, inline, announce: true }), metrics);
    closers.push(() => eventStore.close());
    const authCache = await createAuthCache(pool, databaseUrl);
    closers.push(() => authCache.close());
    const readModels = await createConsistencyWaiter(pool, databaseUrl, { inline: lifecycles.inline.map((p) => p.name) });
    closers.push(() => readModels.close());
    // The credentials cache is a read model too: a write that changed a user's rights
    // answers once this process has forgotten what it cached of them.
    const waiter: ConsistencyWaiter = countingWaits(
      {
        async waitFor(position, names, timeoutMs, options) {
          const ok = await readModels.waitFor(position, names, timeoutMs, options);
          if (ok && names.includes('identity')) await authCache.refresh();
          return ok;
        },
        isInline: (name) => readModels.isInline(name),
        close: () => readModels.close(),
      },
      metrics,
    );
    registerGauges(metrics, pool, lifecycles.async, eventStore.kind === 'postgres');
    if (standbys) {
      const router = standbys;
      metrics.gauge('cairn_standby_replay_lag_ms', 'How far each standby\'s replay is behind the primary, in milliseconds (-1: unknown, unreachable).', ['standby'], async (set) => {
        for (const s of router.status()) set({ standby: s.name }, s.lagMs ?? -1);
      });
      metrics.gauge('cairn_standby_in_rotation', 'Whether each standby serves reads now (1) or is out of rotation (0: unreachable, or behind until it catches up).', ['standby'], async (set) => {
        for (const s of router.status()) set({ standby: s.name }, s.inRotation ? 1 : 0);
      });
    }
    const sessions = createWebSessions(pool, authCache, config.sessionTtlSeconds);
    // A probe that waited in vain for a busy pool's connection still saw the server answer others (DatabaseBusyError).
    const probe = () =>
      pool.query('select 1').catch((error: unknown) => {
        if (!(error instanceof DatabaseBusyError)) throw error;
      });
    const outage = createOutageTracker(logger, { check: probe });
    closers.push(async () => outage.close());
    const oauth = await createOAuthServer({
      pool,
      onDatabaseUnavailable: (error) => outage.failed(error),
      publicUrl: config.publicUrl,
      accessTokenTtlSeconds: config.accessTokenTtlSeconds,
      refreshTokenTtlSeconds: config.refreshTokenTtlSeconds,
      devicePollIntervalSeconds: config.devicePollIntervalSeconds,
      evictLocally: authCache.evict,
      // Signing out of the OAuth server signs the user out of the web application too.
      onSignOut: (accountId) => sessions.endAllForUser(accountId),
    });
    const stores = createRepositoryStores(async (id) => {
      const row = await findRepository(db, id);
      return row ? locationOf(row) : undefined;
    }, config.storage.s3Credentials, { partialMaxAgeMs: config.storage.partialMaxAgeSeconds * 1000 });
    const contentJobs = createContentJobs({
      eventStore,
      db,
      stores,
      extraction: { enabled: config.storage.extractionEnabled, timeoutMs: config.storage.extractionTimeoutMs, memoryMb: config.storage.extractionMemoryMb },
    });
    const webhookKey = await loadWebhookKey(pool);
    const webhookPolicy = { allowedNetworks: createNetworkList(config.webhooks.allowedNetworks), allowHttp: config.webhooks.allowHttp };
    const webhookJobs = createWebhookJobs({
      pool,
      db,
      eventStore,
      logger,
      policy: webhookPolicy,
      key: webhookKey,
      settings: config.webhooks,
      // The feed's own reader: the same visibility and change mapping as GET /api/changes/.
      readFeedPage: ({ caller, after, limit, filters, deniedProjectIds, scanLimit }) =>
        readChanges({ db, eventStore }, { caller, after, limit, deniedProjectIds, scanLimit, filters: { ...filters, kinds: filters.kinds as readonly ChangeKind[] | undefined } }),
    });
    return {
      config,
      logger,
      metrics,
      webhookJobs,
      jobHandlers: { ...contentJobs.handlers, ...webhookJobs.handlers },
      databaseUrl,
      stores,
      downloadKey: await loadDownloadKey(pool),
      webhooks: { policy: webhookPolicy, key: webhookKey, maxPerOwner: config.webhooks.maxPerOwner },
      contentJobs,
      outage,
      standbys,
      pool,
      db,
      costlyDb,
      eventStore,
      projections: lifecycles,
      waiter,
      oauth,
      authCache,
      sessions,
      cookie: sessionCookie(config.publicUrl),
      rateLimiter: createRateLimiter(pool),
      async close() {
        for (const close of closers.reverse()) await close().catch(() => undefined);
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    const line = explainDatabaseError(error, { databaseUrl: config.databaseUrl, dataDir: config.dataDir, freeBytes: config.databaseUrl ? null : await freeBytes(config.dataDir) });
    throw line ? new StartError(line) : error;
  }
}
