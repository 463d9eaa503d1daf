import type pg from 'pg';
import type { Logger } from '../logging/logger.ts';

/**
 * What authentication leaves behind and nothing needs once expired: OAuth artifacts
 * (kept a day past expiry, for reuse detection and `expired_token` answers), ended web
 * sessions, device polls, rate-limit windows, unfinished upstream sign-ins, and
 * invalidations every process has long followed.
 */
export async function purgeExpiredAuthState(pool: pg.Pool): Promise<Record<string, number>> {
  const statements: Record<string, string> = {
    // Interactions and sessions go as soon as they expire; tokens, codes and grants a day
    // later, for reuse detection and `expired_token` answers.
    oidc_payloads:
      "delete from oidc_payloads where expires_at < now() - case when model in ('Interaction', 'Session', 'DeviceCode') then interval '0' else interval '1 day' end",
    web_sessions: 'delete from web_sessions where expires_at < now()',
    device_code_polls: 'delete from device_code_polls where expires_at < now()',
    rate_limit_counters: "delete from rate_limit_counters where window_started_at < now() - interval '1 day'",
    upstream_sign_ins: 'delete from upstream_sign_ins where expires_at < now()',
    auth_invalidations: "delete from auth_invalidations where created_at < now() - interval '1 hour'",
    // Answers to Idempotency-Keys are kept 24 hours (docs/idempotency.md), then a day more for clocks and slow retries.
    idempotency_keys: "delete from idempotency_keys where started_at < now() - interval '48 hours'",
  };
  const removed: Record<string, number> = {};
  for (const [table, statement] of Object.entries(statements)) removed[table] = (await pool.query(statement)).rowCount ?? 0;
  return removed;
}

/** Runs the purge now and then every `intervalMs` until stopped. */
export function startAuthPurge(pool: pg.Pool, logger: Logger, intervalMs = 600_000): () => void {
  const run = () =>
    void purgeExpiredAuthState(pool)
      .then((removed) => logger.debug('expired authentication state purged', removed))
      .catch((error: unknown) => logger.warn('purge of expired authentication state failed', { error: error instanceof Error ? error.message : String(error) }));
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
