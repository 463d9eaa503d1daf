import type pg from 'pg';

export type Progress = { readonly lastPosition: string; readonly consecutiveFailures: number };

/** The subscription's progress, made at its start position the first time it is needed. */
export async function progressOf(pool: pg.Pool, webhookId: string, startAfter: string): Promise<Progress> {
  await pool.query('insert into webhook_progress (webhook_id, last_position) values ($1, $2) on conflict do nothing', [webhookId, startAfter]);
  const { rows } = await pool.query<{ last_position: string; consecutive_failures: number }>('select last_position, consecutive_failures from webhook_progress where webhook_id = $1', [webhookId]);
  const row = rows[0];
  if (!row) throw new Error(`webhook progress of ${webhookId} is missing`);
  return { lastPosition: row.last_position, consecutiveFailures: row.consecutive_failures };
}

/** Delivered (or passed over, as not the owner's to see): the next change starts after it, and the failures in a row end. */
export async function advance(pool: pg.Pool, webhookId: string, position: string): Promise<void> {
  await pool.query('update webhook_progress set last_position = $2, consecutive_failures = 0, last_error = null, next_attempt_at = now(), updated_at = now() where webhook_id = $1', [webhookId, position]);
}

/**
 * One more failure in a row: the next job is not scheduled before the back-off, doubled
 * after each failure, at most an hour. Answers how many failures there are now.
 */
export async function recordFailure(pool: pg.Pool, webhookId: string, error: string, backoffMs: number): Promise<number> {
  const { rows } = await pool.query<{ consecutive_failures: number }>(
    `update webhook_progress set consecutive_failures = consecutive_failures + 1, last_error = $2, updated_at = now(),
       next_attempt_at = now() + make_interval(secs => least(3600, $3::double precision / 1000 * power(2, consecutive_failures)))
     where webhook_id = $1 returning consecutive_failures`,
    [webhookId, error.slice(0, 2000), backoffMs],
  );
  return rows[0]?.consecutive_failures ?? 0;
}

/**
 * The log could not be read past the position (its readers wait for the oldest transaction
 * still running anywhere in the cluster): the next run waits a moment instead of being
 * scheduled again at every look of the scheduler.
 */
export async function deferIdle(pool: pg.Pool, webhookId: string, ms: number): Promise<void> {
  await pool.query('update webhook_progress set next_attempt_at = now() + make_interval(secs => $2::double precision / 1000) where webhook_id = $1', [webhookId, ms]);
}
