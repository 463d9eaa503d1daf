import { availableParallelism } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { networkListSetting, vpnNetworksSetting } from '../geo/geo-config.ts';

const optionalUrl = (schemes: readonly string[]) =>
  z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .refine((v) => v === undefined || schemes.some((s) => v.startsWith(`${s}://`)), {
      message: `must start with ${schemes.map((s) => `${s}://`).join(' or ')}`,
    });

const emptyIsUnset = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const nonNegativeInt = (fallback: number) => z.coerce.number().int().nonnegative().default(fallback);

/**
 * Connections of the main pool when CAIRN_DB_POOL_SIZE is unset: twice this machine's cores,
 * at least 4 and at most 20 (the fixed size before; a container allowed one core of a large
 * host sees the host's cores). PostgreSQL runs a backend process per connection, and more backends busy at
 * once than the server has cores only take turns: on 2 cores shared with PostgreSQL, a pool
 * of 4 served the mixed benchmark a third faster than one of 20 (docs/benchmarks.md,
 * thirteenth sitting). A server with more cores than this machine wants the variable set.
 */
export const defaultPoolSize = (cores: number) => Math.min(20, Math.max(4, 2 * cores));

const environmentSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: optionalUrl(['postgres', 'postgresql']),
  // Hot standbys of DATABASE_URL, comma-separated: where query processes read their read models (docs/consistency.md, "Standbys").
  DATABASE_READ_URL: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((u) => u.trim()).filter(Boolean))
    .refine((urls) => urls.every((u) => /^postgres(ql)?:\/\//.test(u)), { message: 'must be postgres:// URLs, comma-separated' }),
  CAIRN_STANDBY_WAIT_MS: positiveInt(1000),
  CAIRN_STANDBY_MAX_LAG_MS: positiveInt(10_000),
  REDIS_URL: optionalUrl(['redis', 'rediss']),
  EVENTSTORE_URL: optionalUrl(['esdb', 'esdb+discover', 'kurrentdb', 'kurrentdb+discover']),
  CAIRN_DATA_DIR: z.string().min(1).default('./data'),
  CAIRN_PUBLIC_URL: optionalUrl(['http', 'https']),
  CAIRN_CONSISTENCY_TIMEOUT_MS: positiveInt(5000),
  CAIRN_PROJECTION_MODE: z.enum(['inline', 'async']).default('inline'),
  CAIRN_BODY_LIMIT_BYTES: positiveInt(1_048_576),
  CAIRN_QUERY_SCAN_CAP: positiveInt(10_000),
  CAIRN_LISTING_WINDOW_ROWS: positiveInt(5_000),
  CAIRN_LISTING_WALK_ROWS: nonNegativeInt(5_000),
  CAIRN_VIEWER_FACTS_SECONDS: nonNegativeInt(10),
  CAIRN_LISTING_PLANS_KEPT: nonNegativeInt(32),
  CAIRN_STATEMENT_TIMEOUT_MS: positiveInt(5000),
  CAIRN_COSTLY_READS_PER_CALLER: positiveInt(2),
  CAIRN_READ_CACHE_MB: z.coerce.number().int().min(0).default(64),
  CAIRN_ACCESS_TOKEN_TTL_SECONDS: positiveInt(900),
  CAIRN_REFRESH_TOKEN_TTL_SECONDS: positiveInt(14 * 86_400),
  CAIRN_SESSION_TTL_SECONDS: positiveInt(7 * 86_400),
  CAIRN_TRUSTED_ORIGINS: z.string().default(''),
  CAIRN_DEVICE_POLL_INTERVAL_SECONDS: positiveInt(5),
  CAIRN_SIGNIN_MAX_FAILURES_PER_ACCOUNT: positiveInt(5),
  CAIRN_SIGNIN_MAX_FAILURES_PER_ADDRESS: positiveInt(20),
  CAIRN_SIGNIN_FAILURE_WINDOW_SECONDS: positiveInt(900),
  CAIRN_OAUTH_STARTS_PER_MINUTE: positiveInt(60),
  CAIRN_ANONYMOUS_REQUESTS_PER_MINUTE: positiveInt(600),
  CAIRN_AUTH_PURGE_INTERVAL_SECONDS: positiveInt(60),
  CAIRN_HEADERS_TIMEOUT_MS: positiveInt(10_000),
  CAIRN_REQUEST_TIMEOUT_MS: positiveInt(300_000),
  CAIRN_KEEP_ALIVE_TIMEOUT_MS: positiveInt(5_000),
  CAIRN_UPSTREAM_OIDC_ISSUER: optionalUrl(['http', 'https']),
  CAIRN_UPSTREAM_OIDC_CLIENT_ID: z.string().optional(),
  CAIRN_UPSTREAM_OIDC_CLIENT_SECRET: z.string().optional(),
  CAIRN_UPSTREAM_OIDC_NAME: z.string().min(1).max(100).default('your organization'),
  CAIRN_UPSTREAM_OIDC_CREATE_USERS: z.enum(['true', 'false']).default('true'),
  CAIRN_EMBEDDED_PG_PORT: positiveInt(54329),
  CAIRN_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  CAIRN_GEOIP_DB: z.string().trim().optional().transform((v) => (v === '' ? undefined : v)),
  CAIRN_TRUSTED_PROXIES: networkListSetting,
  CAIRN_UPLOAD_LIMIT_BYTES: positiveInt(5 * 1024 ** 3),
  // Unset: decided below from DATABASE_URL (on for the embedded start, off for a deployment).
  CAIRN_DEFAULT_ALLOCATION_BYTES: z.preprocess(emptyIsUnset, z.coerce.number().int().min(0).max(2 ** 50).optional()),
  CAIRN_DEFAULT_ALLOCATION_REPOSITORY: z.preprocess(emptyIsUnset, z.string().trim().min(1).max(100).default('local')),
  CAIRN_METADATA_EXTRACTION: z.enum(['enabled', 'disabled']).default('enabled'),
  CAIRN_WEBHOOK_ALLOWED_NETWORKS: networkListSetting,
  CAIRN_WEBHOOK_ALLOW_HTTP: z.enum(['true', 'false']).default('false'),
  CAIRN_WEBHOOK_TIMEOUT_MS: positiveInt(10_000),
  CAIRN_WEBHOOK_MAX_FAILURES: positiveInt(10),
  CAIRN_WEBHOOK_BACKOFF_MS: positiveInt(5_000),
  CAIRN_WEBHOOK_POLL_MS: positiveInt(250),
  CAIRN_WEBHOOK_CONCURRENCY: positiveInt(8),
  CAIRN_WEBHOOK_MAX_PER_OWNER: positiveInt(25),
  CAIRN_WEBHOOK_LOG_KEPT: positiveInt(1_000),
  CAIRN_EXTRACTION_TIMEOUT_MS: positiveInt(30_000),
  CAIRN_EXTRACTION_MEMORY_MB: positiveInt(256),
  CAIRN_S3_ACCESS_KEY_ID: z.string().trim().optional(),
  CAIRN_S3_SECRET_ACCESS_KEY: z.string().trim().optional(),
  CAIRN_DOWNLOAD_URL_TTL_SECONDS: positiveInt(300),
  CAIRN_STREAM_IDLE_TIMEOUT_MS: positiveInt(60_000),
  CAIRN_PARTIAL_MAX_AGE_SECONDS: positiveInt(3600),
  CAIRN_UPLOAD_EXPIRY_SECONDS: positiveInt(86_400),
  CAIRN_UPLOAD_PART_URL_TTL_SECONDS: positiveInt(3600),
  CAIRN_UPLOAD_MAX_OPEN: positiveInt(100),
  CAIRN_JOB_ATTEMPTS: positiveInt(5),
  CAIRN_JOB_BACKOFF_MS: positiveInt(2000),
  CAIRN_READY_MAX_LAG_SECONDS: positiveInt(60),
  CAIRN_SHUTDOWN_TIMEOUT_MS: positiveInt(10_000),
  CAIRN_DB_CONNECT_TIMEOUT_MS: positiveInt(5000),
  CAIRN_DB_QUERY_TIMEOUT_MS: positiveInt(30_000),
  CAIRN_DB_POOL_SIZE: z.preprocess(emptyIsUnset, z.coerce.number().int().min(2).max(1000).optional()),
  // Empty is unset (not port 0, which would pick a free port).
  CAIRN_OPS_PORT: z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), z.coerce.number().int().min(0).max(65535).optional()),
  CAIRN_QUEUE_NAME: z.string().trim().regex(/^[A-Za-z0-9_-]{1,100}$/).optional(),
  CAIRN_VPN_NETWORKS: vpnNetworksSetting,
  CAIRN_CHANGES_HEARTBEAT_MS: positiveInt(15_000),
  CAIRN_CHANGES_STREAMS_PER_CALLER: positiveInt(5),
  CAIRN_CHANGES_STREAMS_PER_PROCESS: positiveInt(2000),
  CAIRN_CHANGES_STREAM_MAX_SECONDS: positiveInt(900),
  CAIRN_CHANGES_POLL_MS: positiveInt(1000),
});

/** 10 GiB: room to try Cairn with real files on the embedded start's `local` repository. */
export const embeddedDefaultAllocationBytes = 10 * 1024 ** 3;

/** The change feed's event streams (docs/changes.md). */
export type ChangeStreamSettings = {
  /** A comment line this often on an idle stream: proxies keep it open, clients see it alive. */
  readonly heartbeatMs: number;
  /** Open streams one caller may hold on one process, and the process in all (429 beyond). */
  readonly streamsPerCaller: number;
  readonly streamsPerProcess: number;
  /** A stream ends after this long; the client reconnects with Last-Event-ID and its credentials are checked again. */
  readonly streamMaxSeconds: number;
  /** The log is read at least this often even without a wake-up (a NOTIFY lost with its connection). */
  readonly pollMs: number;
};

export type Config = {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string | undefined;
  /**
   * Hot standbys of the primary (DATABASE_READ_URL) and how they are used: a read with a
   * token waits up to `waitMs` for one to replay the write; one further behind than
   * `maxLagMs` leaves the rotation until it has caught up.
   */
  readonly standbys: { readonly urls: readonly string[]; readonly waitMs: number; readonly maxLagMs: number };
  readonly redisUrl: string | undefined;
  readonly eventStoreUrl: string | undefined;
  readonly dataDir: string;
  readonly publicUrl: string;
  readonly consistencyTimeoutMs: number;
  /** `inline`: on PostgreSQL, read models are applied in the append's transaction (docs/consistency.md). */
  readonly projectionMode: 'inline' | 'async';
  readonly bodyLimitBytes: number;
  /** Rows the asset query's post-filter examines per page at most (X-Scan-Cap-Hit). */
  readonly queryScanCap: number;
  /** About how many assets of the listing's order a filtered page's first window spans (docs/assets.md, "Filtered pages"). */
  readonly listingWindowRows: number;
  /** At most how many of a tag's, owner's or record type's assets a filtered page walks in order before it reads by windows (docs/assets.md, "Filtered pages"). */
  readonly listingWalkRows: number;
  /** How long a query process keeps a caller's listing facts, which each statement using them checks (docs/assets.md, "The caller's facts, kept"); 0: read them for every page. */
  readonly viewerFactsSeconds: number;
  /** How many shapes of a listing's driven statements a process keeps plans of, per connection (docs/assets.md, "Plans kept"); 0: none. */
  readonly listingPlansKept: number;
  /** The costly reads (structured query, `q` and metadata filters): each statement's time at most, and how many one caller runs at once per process (docs/asset-query.md). */
  readonly costlyReads: { readonly statementTimeoutMs: number; readonly perCaller: number };
  /** Megabytes of asset and collection answers each query process keeps per snapshot; 0: none (docs/read-cache.md). */
  readonly readCacheMb: number;
  /** The change feed's event streams (docs/changes.md). */
  readonly changes: ChangeStreamSettings;
  readonly accessTokenTtlSeconds: number;
  readonly refreshTokenTtlSeconds: number;
  readonly sessionTtlSeconds: number;
  /** Origins besides the public URL's whose cookie-authenticated writes are accepted. */
  readonly trustedOrigins: readonly string[];
  readonly devicePollIntervalSeconds: number;
  readonly signIn: {
    readonly maxFailuresPerAccount: number;
    readonly maxFailuresPerAddress: number;
    readonly failureWindowSeconds: number;
    /** Sign-ins, device pages and device authorizations one client address may start per minute. */
    readonly maxOAuthStartsPerMinute: number;
    /** Requests one client address may send per minute to the routes that need no token (docs/sign-in.md). */
    readonly maxAnonymousRequestsPerMinute: number;
    /** How often expired sign-in state is purged. */
    readonly purgeIntervalSeconds: number;
  };
  /** Node's HTTP server bounds (docs/http.md): a request head, a whole request, an idle kept-alive connection. */
  readonly http: { readonly headersTimeoutMs: number; readonly requestTimeoutMs: number; readonly keepAliveTimeoutMs: number };
  /** An external OpenID Connect provider that sign-in may be delegated to, when configured. */
  readonly upstream: { readonly issuer: string; readonly clientId: string; readonly clientSecret: string | undefined; readonly name: string; readonly createUsers: boolean } | null;
  readonly embeddedPgPort: number;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** The geographic restriction of projects (docs/projects.md): MaxMind-format country database, unset: the bundled one. */
  readonly geoipDbPath: string | undefined;
  readonly trustedProxies: readonly string[];
  readonly vpnNetworks: readonly string[];
  readonly vpnNetworksFile: string | undefined;
  /** Content bytes and the jobs on them (docs/storage.md, docs/jobs.md). */
  readonly storage: {
    /** The largest upload, apart from the JSON body limit. */
    readonly uploadLimitBytes: number;
    readonly extractionEnabled: boolean;
    readonly extractionTimeoutMs: number;
    readonly extractionMemoryMb: number;
    /** For every s3 repository; unset: the AWS SDK's own chain (AWS_ACCESS_KEY_ID, profiles, roles). */
    readonly s3Credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | null;
    readonly downloadUrlTtlSeconds: number;
    /** A download (any streamed answer) whose client reads nothing for this long is ended. */
    readonly streamIdleTimeoutMs: number;
    /** An fs store's `.partial` file untouched this long is a killed upload's, removed at start. */
    readonly partialMaxAgeSeconds: number;
    /** A direct upload still open this long after it started is aborted and cleaned (docs/storage.md "Direct uploads"). */
    readonly uploadExpirySeconds: number;
    /** Lifetime of the part URLs of a direct upload (never past the upload's expiry). */
    readonly partUrlTtlSeconds: number;
    /** At most this many direct uploads open at once on one allocation (docs/storage.md "Direct uploads"). */
    readonly maxOpenUploads: number;
    /** What every new user is granted on a repository named here; `limitBytes` 0: nothing (docs/storage.md). */
    readonly defaultAllocation: { readonly limitBytes: number; readonly repositoryName: string };
  };
  /** /readyz fails while an async read model is further behind than this. */
  readonly readyMaxLagSeconds: number;
  /** How long a SIGTERM waits for in-flight requests and jobs before it closes what is left. */
  readonly shutdownTimeoutMs: number;
  readonly jobs: { readonly attempts: number; readonly backoffMs: number; readonly queueName: string | undefined };
  /**
   * Webhook deliveries (docs/changes.md, "Webhooks"): the special-purpose networks they may
   * reach after all, plain http, each POST's bound, the failures in a row that pause a
   * subscription, the first back-off (doubled per failure, at most an hour), and how often
   * the subscriptions are looked over for new changes.
   */
  readonly webhooks: {
    readonly allowedNetworks: readonly string[];
    readonly allowHttp: boolean;
    readonly timeoutMs: number;
    readonly maxFailures: number;
    readonly backoffMs: number;
    readonly pollMs: number;
    /** Deliveries one worker process runs at once, on slots apart from the other jobs' (docs/jobs.md). */
    readonly concurrency: number;
    /** Subscriptions one user may hold: each costs the scheduler a look and a read of the log per run. */
    readonly maxPerOwner: number;
    /** Attempts kept in each subscription's delivery log, the newest: older ones are dropped as new ones are logged. */
    readonly deliveryLogKept: number;
  };
  /** Bounds on the serving pool (docs/observability.md, "Database outages"). */
  readonly database: {
    /** Opening a connection, or waiting for a free one in the pool. */
    readonly connectTimeoutMs: number;
    /** One statement of a request, a job or a probe; migrations, the projector and the command line have none. */
    readonly queryTimeoutMs: number;
    /** Connections of a serving process's main pool to each server (the costly reads' pool is a quarter of it, at least 4). */
    readonly poolSize: number;
  };
  /** The operations port (/metrics, the details of /readyz); unset: they are not served (docs/observability.md). */
  readonly opsPort: number | undefined;
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parsed once at start and passed down; a bad value stops the process with its name. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  if (e.CAIRN_HEADERS_TIMEOUT_MS > e.CAIRN_REQUEST_TIMEOUT_MS) {
    // Node refuses a server whose head may take longer than the whole request.
    throw new ConfigError('invalid configuration: CAIRN_HEADERS_TIMEOUT_MS: must not exceed CAIRN_REQUEST_TIMEOUT_MS');
  }
  if (e.DATABASE_READ_URL.length > 0 && !e.DATABASE_URL) {
    throw new ConfigError('invalid configuration: DATABASE_READ_URL: needs DATABASE_URL (the primary the standbys follow)');
  }
  if (e.CAIRN_UPSTREAM_OIDC_ISSUER && !e.CAIRN_UPSTREAM_OIDC_CLIENT_ID) {
    throw new ConfigError('invalid configuration: CAIRN_UPSTREAM_OIDC_CLIENT_ID: required when CAIRN_UPSTREAM_OIDC_ISSUER is set');
  }
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    standbys: { urls: e.DATABASE_READ_URL, waitMs: e.CAIRN_STANDBY_WAIT_MS, maxLagMs: e.CAIRN_STANDBY_MAX_LAG_MS },
    redisUrl: e.REDIS_URL,
    eventStoreUrl: e.EVENTSTORE_URL,
    dataDir: path.resolve(e.CAIRN_DATA_DIR),
    publicUrl: (e.CAIRN_PUBLIC_URL ?? `http://${e.HOST}:${e.PORT}`).replace(/\/+$/, ''),
    consistencyTimeoutMs: e.CAIRN_CONSISTENCY_TIMEOUT_MS,
    projectionMode: e.CAIRN_PROJECTION_MODE,
    bodyLimitBytes: e.CAIRN_BODY_LIMIT_BYTES,
    queryScanCap: e.CAIRN_QUERY_SCAN_CAP,
    listingWindowRows: e.CAIRN_LISTING_WINDOW_ROWS,
    listingWalkRows: e.CAIRN_LISTING_WALK_ROWS,
    viewerFactsSeconds: e.CAIRN_VIEWER_FACTS_SECONDS,
    listingPlansKept: e.CAIRN_LISTING_PLANS_KEPT,
    costlyReads: { statementTimeoutMs: e.CAIRN_STATEMENT_TIMEOUT_MS, perCaller: e.CAIRN_COSTLY_READS_PER_CALLER },
    readCacheMb: e.CAIRN_READ_CACHE_MB,
    changes: {
      heartbeatMs: e.CAIRN_CHANGES_HEARTBEAT_MS,
      streamsPerCaller: e.CAIRN_CHANGES_STREAMS_PER_CALLER,
      streamsPerProcess: e.CAIRN_CHANGES_STREAMS_PER_PROCESS,
      streamMaxSeconds: e.CAIRN_CHANGES_STREAM_MAX_SECONDS,
      pollMs: e.CAIRN_CHANGES_POLL_MS,
    },
    accessTokenTtlSeconds: e.CAIRN_ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: e.CAIRN_REFRESH_TOKEN_TTL_SECONDS,
    sessionTtlSeconds: e.CAIRN_SESSION_TTL_SECONDS,
    trustedOrigins: e.CAIRN_TRUSTED_ORIGINS.split(',').map((o) => o.trim().replace(/\/+$/, '')).filter(Boolean),
    devicePollIntervalSeconds: e.CAIRN_DEVICE_POLL_INTERVAL_SECONDS,
    upstream: e.CAIRN_UPSTREAM_OIDC_ISSUER
      ? {
          issuer: e.CAIRN_UPSTREAM_OIDC_ISSUER,
          clientId: e.CAIRN_UPSTREAM_OIDC_CLIENT_ID ?? '',
          clientSecret: e.CAIRN_UPSTREAM_OIDC_CLIENT_SECRET,
          name: e.CAIRN_UPSTREAM_OIDC_NAME,
          createUsers: e.CAIRN_UPSTREAM_OIDC_CREATE_USERS === 'true',
        }
      : null,
    signIn: {
      maxFailuresPerAccount: e.CAIRN_SIGNIN_MAX_FAILURES_PER_ACCOUNT,
      maxFailuresPerAddress: e.CAIRN_SIGNIN_MAX_FAILURES_PER_ADDRESS,
      failureWindowSeconds: e.CAIRN_SIGNIN_FAILURE_WINDOW_SECONDS,
      maxOAuthStartsPerMinute: e.CAIRN_OAUTH_STARTS_PER_MINUTE,
      maxAnonymousRequestsPerMinute: e.CAIRN_ANONYMOUS_REQUESTS_PER_MINUTE,
      purgeIntervalSeconds: e.CAIRN_AUTH_PURGE_INTERVAL_SECONDS,
    },
    http: { headersTimeoutMs: e.CAIRN_HEADERS_TIMEOUT_MS, requestTimeoutMs: e.CAIRN_REQUEST_TIMEOUT_MS, keepAliveTimeoutMs: e.CAIRN_KEEP_ALIVE_TIMEOUT_MS },
    embeddedPgPort: e.CAIRN_EMBEDDED_PG_PORT,
    logLevel: e.CAIRN_LOG_LEVEL,
    geoipDbPath: e.CAIRN_GEOIP_DB,
    trustedProxies: e.CAIRN_TRUSTED_PROXIES,
    vpnNetworks: e.CAIRN_VPN_NETWORKS.networks,
    vpnNetworksFile: e.CAIRN_VPN_NETWORKS.file,
    storage: {
      uploadLimitBytes: e.CAIRN_UPLOAD_LIMIT_BYTES,
      extractionEnabled: e.CAIRN_METADATA_EXTRACTION === 'enabled',
      extractionTimeoutMs: e.CAIRN_EXTRACTION_TIMEOUT_MS,
      extractionMemoryMb: e.CAIRN_EXTRACTION_MEMORY_MB,
      s3Credentials: e.CAIRN_S3_ACCESS_KEY_ID && e.CAIRN_S3_SECRET_ACCESS_KEY ? { accessKeyId: e.CAIRN_S3_ACCESS_KEY_ID, secretAccessKey: e.CAIRN_S3_SECRET_ACCESS_KEY } : null,
      downloadUrlTtlSeconds: e.CAIRN_DOWNLOAD_URL_TTL_SECONDS,
      streamIdleTimeoutMs: e.CAIRN_STREAM_IDLE_TIMEOUT_MS,
      partialMaxAgeSeconds: e.CAIRN_PARTIAL_MAX_AGE_SECONDS,
      uploadExpirySeconds: e.CAIRN_UPLOAD_EXPIRY_SECONDS,
      partUrlTtlSeconds: e.CAIRN_UPLOAD_PART_URL_TTL_SECONDS,
      maxOpenUploads: e.CAIRN_UPLOAD_MAX_OPEN,
      defaultAllocation: {
        // The embedded start is one person trying Cairn: content should work at once. A
        // deployment (DATABASE_URL) grants storage on purpose, so nothing unless configured.
        limitBytes: e.CAIRN_DEFAULT_ALLOCATION_BYTES ?? (e.DATABASE_URL ? 0 : embeddedDefaultAllocationBytes),
        repositoryName: e.CAIRN_DEFAULT_ALLOCATION_REPOSITORY,
      },
    },
    readyMaxLagSeconds: e.CAIRN_READY_MAX_LAG_SECONDS,
    shutdownTimeoutMs: e.CAIRN_SHUTDOWN_TIMEOUT_MS,
    jobs: { attempts: e.CAIRN_JOB_ATTEMPTS, backoffMs: e.CAIRN_JOB_BACKOFF_MS, queueName: e.CAIRN_QUEUE_NAME },
    webhooks: {
      allowedNetworks: e.CAIRN_WEBHOOK_ALLOWED_NETWORKS,
      allowHttp: e.CAIRN_WEBHOOK_ALLOW_HTTP === 'true',
      timeoutMs: e.CAIRN_WEBHOOK_TIMEOUT_MS,
      maxFailures: e.CAIRN_WEBHOOK_MAX_FAILURES,
      backoffMs: e.CAIRN_WEBHOOK_BACKOFF_MS,
      pollMs: e.CAIRN_WEBHOOK_POLL_MS,
      concurrency: e.CAIRN_WEBHOOK_CONCURRENCY,
      maxPerOwner: e.CAIRN_WEBHOOK_MAX_PER_OWNER,
      deliveryLogKept: e.CAIRN_WEBHOOK_LOG_KEPT,
    },
    database: { connectTimeoutMs: e.CAIRN_DB_CONNECT_TIMEOUT_MS, queryTimeoutMs: e.CAIRN_DB_QUERY_TIMEOUT_MS, poolSize: e.CAIRN_DB_POOL_SIZE ?? defaultPoolSize(availableParallelism()) },
    opsPort: e.CAIRN_OPS_PORT,
  };
}
