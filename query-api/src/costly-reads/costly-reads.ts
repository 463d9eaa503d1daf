import { HttpError, httpErrors, isPoolSaturated } from '@cairn/platform';
import { poolOf, type ReadDb } from '@cairn/projections';

/**
 * The reads whose cost the caller chooses (the structured query, `q` searches, metadata
 * filters; docs/asset-query.md, "Cost"). They run on their own connections, where
 * PostgreSQL cancels a statement past the timeout, and one caller runs at most
 * `perCaller` of them at a time in this process: one read-only token can no longer keep
 * the database busy with parallel queries.
 */
export type CostlyReads = {
  /** Runs `work` on the costly reads' database for this caller, or refuses it (429, 503). */
  run<T>(callerId: string, work: (db: ReadDb) => Promise<T>): Promise<T>;
};

export type CostlyReadsOptions = { readonly db: ReadDb; readonly perCaller: number; readonly statementTimeoutMs: number };

// SQLSTATE query_canceled: the statement timeout (or an operator's pg_cancel_backend).
const isCancelled = (error: unknown) => error instanceof Error && (error as Error & { code?: unknown }).code === '57014';

/** Every connection for costly reads is busy with others (isPoolSaturated): this process is saturated, the database is there. */
function isSaturated(db: ReadDb, error: unknown): boolean {
  const pool = poolOf(db);
  return pool !== undefined && isPoolSaturated(pool, error);
}

export function createCostlyReads({ db, perCaller, statementTimeoutMs }: CostlyReadsOptions): CostlyReads {
  const running = new Map<string, number>();
  // The same query may finish when the database is less busy: a 503 to retry, not a 4xx
  // blaming the request; waiting at least the timeout itself before trying again.
  const retryAfterSeconds = Math.max(1, Math.ceil(statementTimeoutMs / 1000));
  return {
    async run(callerId, work) {
      const now = running.get(callerId) ?? 0;
      if (now >= perCaller) {
        throw new HttpError(429, 'rate_limited', `At most ${perCaller} searches or queries of one caller run at a time; wait for one to finish.`, undefined, { 'Retry-After': '1' });
      }
      running.set(callerId, now + 1);
      try {
        return await work(db);
      } catch (error) {
        if (isCancelled(error)) {
          throw httpErrors.unavailable('query_timeout', `The query ran longer than ${statementTimeoutMs} ms and was stopped; narrow it, or try again when the service is less busy.`, retryAfterSeconds);
        }
        if (isSaturated(db, error)) {
          throw httpErrors.unavailable('service_busy', 'Every connection for searches and queries is busy with others; try again shortly.', 1);
        }
        throw error;
      } finally {
        const left = (running.get(callerId) ?? 1) - 1;
        if (left > 0) running.set(callerId, left);
        else running.delete(callerId);
      }
    },
  };
}
