import type pg from 'pg';

export type RateLimitState = { readonly blocked: boolean; readonly retryAfterSeconds: number };

/**
 * Fixed-window counters in PostgreSQL, so every instance counts together. `hit` counts and
 * answers; `check` only answers; `reset` forgets (a successful sign-in).
 */
export type RateLimiter = {
  hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitState>;
  check(key: string, limit: number, windowSeconds: number): Promise<RateLimitState>;
  reset(key: string): Promise<void>;
  /** Takes one attempt back (one that turned out not to be a failure). */
  forgive(key: string): Promise<void>;
};

export function createRateLimiter(pool: pg.Pool): RateLimiter {
  return {
    async hit(key, limit, windowSeconds) {
      const { rows } = await pool.query<{ count: number; retry_after: number }>(
        `insert into rate_limit_counters (key, window_started_at, count) values ($1, now(), 1)
         on conflict (key) do update set
           count = case when rate_limit_counters.window_started_at <= now() - make_interval(secs => $2) then 1 else rate_limit_counters.count + 1 end,
           window_started_at = case when rate_limit_counters.window_started_at <= now() - make_interval(secs => $2) then now() else rate_limit_counters.window_started_at end
         returning count, ceil(extract(epoch from window_started_at + make_interval(secs => $2) - now()))::int as retry_after`,
        [key, windowSeconds],
      );
      const row = rows[0];
      return { blocked: (row?.count ?? 0) > limit, retryAfterSeconds: Math.max(1, row?.retry_after ?? windowSeconds) };
    },

    async check(key, limit, windowSeconds) {
      const { rows } = await pool.query<{ count: number; retry_after: number }>(
        `select count, ceil(extract(epoch from window_started_at + make_interval(secs => $2) - now()))::int as retry_after
         from rate_limit_counters where key = $1 and window_started_at > now() - make_interval(secs => $2)`,
        [key, windowSeconds],
      );
      const row = rows[0];
      return { blocked: (row?.count ?? 0) >= limit, retryAfterSeconds: Math.max(1, row?.retry_after ?? 1) };
    },

    async reset(key) {
      await pool.query('delete from rate_limit_counters where key = $1', [key]);
    },

    async forgive(key) {
      await pool.query('update rate_limit_counters set count = greatest(count - 1, 0) where key = $1', [key]);
    },
  };
}
