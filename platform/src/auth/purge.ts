import type pg from 'pg';
import type { Logger } from '../logging/logger.ts';

export type PurgeOptions = {
  /** Rows one statement deletes at most: no tick holds many row locks, or the table, for long. */
  readonly batchSize?: number;
  /** Batches per table and tick at most; what is left goes at the next tick. */
  readonly maxBatches?: number;
  /** The longest rate-limit window in use: a counter whose window ended longer ago counts nothing. */
  readonly counterWindowSeconds?: number;
};

/**
 * What anonymous visitors can make the OAuth server store (docs/sign-in.md): these go as
 * soon as they expire. Tokens, codes and grants are kept a day past expiry, for reuse
 * detection and `expired_token` answers; nobody gets those without signing in.
 */
export const anonymousOidcModels = ['PushedAuthorizationRequest', 'Interaction', 'Session', 'DeviceCode', 'BackchannelAuthenticationRequest', 'ReplayDetection'] as const;

/** Per table, the rows nothing needs any more (a condition; $1 is the counters' window in seconds). */
const expired: Record<string, string> = {
  oidc_payloads: `expires_at < now() - case when model = any('{${anonymousOidcModels.join(',')}}'::text[]) then interval '0' else interval '1 day' end`,
  web_sessions: 'expires_at < now()',
  device_code_polls: 'expires_at < now()',
  rate_limit_counters: 'window_started_at < now() - make_interval(secs => $1)',
  upstream_sign_ins: 'expires_at < now()',
  // Long followed by every process.
  auth_invalidations: "created_at < now() - interval '1 hour'",
  // Answers to Idempotency-Keys are kept 24 hours (docs/idempotency.md), then a day more for clocks and slow retries.
  idempotency_keys: "started_at < now() - interval '48 hours'",
};

/**
 * What authentication leaves behind and nothing needs once expired: OAuth artifacts, ended
 * web sessions, device polls, rate-limit windows, unfinished upstream sign-ins, and
 * invalidations every process has long followed. Deleted in batches.
 */
export async function purgeExpiredAuthState(pool: pg.Pool, options: PurgeOptions = {}): Promise<Record<string, number>> {
  const batchSize = options.batchSize ?? 1000;
  const maxBatches = options.maxBatches ?? 100;
  const windowSeconds = Math.max(options.counterWindowSeconds ?? 86_400, 60);
  const removed: Record<string, number> = {};
  for (const [table, condition] of Object.entries(expired)) {
    const usesWindow = condition.includes('$1');
    const statement = `delete from ${table} where ctid = any(array(select ctid from ${table} where ${condition} limit ${batchSize}))`;
    removed[table] = 0;
    for (let batch = 0; batch < maxBatches; batch += 1) {
      const count = (await pool.query(statement, usesWindow ? [windowSeconds] : [])).rowCount ?? 0;
      removed[table] += count;
      if (count < batchSize) break;
    }
  }
  return removed;
}

/** Runs the purge now and then every `intervalMs` until stopped; a tick still running makes the next one wait its turn. */
export function startAuthPurge(pool: pg.Pool, logger: Logger, intervalMs = 60_000, options: PurgeOptions = {}): () => void {
  let running = false;
  const run = () => {
    if (running) return;
    running = true;
    void purgeExpiredAuthState(pool, options)
      .then((removed) => logger.debug('expired authentication state purged', removed))
      .catch((error: unknown) => logger.warn('purge of expired authentication state failed', { error: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        running = false;
      });
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
