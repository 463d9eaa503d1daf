import type { Metrics } from '@cairn/platform';
import type { Projection } from '@cairn/projections';
import type pg from 'pg';

/** What is read when the metrics are scraped: pool usage, the jobs waiting, and how far async read models lag. */
export function registerGauges(metrics: Metrics, pool: pg.Pool, asyncProjections: readonly Projection[], postgresLog: boolean): void {
  metrics.gauge('cairn_db_pool_connections', 'Database pool connections, by state (total, idle, waiting clients).', ['state'], async (set) => {
    set({ state: 'total' }, pool.totalCount);
    set({ state: 'idle' }, pool.idleCount);
    set({ state: 'waiting' }, pool.waitingCount);
  });
  metrics.gauge('cairn_jobs_waiting', 'Background jobs recorded and not finished, by job (the outbox, docs/jobs.md).', ['job'], async (set) => {
    const { rows } = await pool.query<{ name: string; count: string }>('select name, count(*)::text as count from job_outbox group by name');
    for (const r of rows) set({ job: r.name }, Number(r.count));
  });
  if (!postgresLog || asyncProjections.length === 0) return;
  metrics.gauge('cairn_projection_lag_seconds', 'Age of the oldest event an async read model has not applied yet (0: caught up).', ['projection'], async (set) => {
    for (const projection of asyncProjections) set({ projection: projection.name }, await lagSeconds(pool, projection));
  });
}

/** How old the oldest event of its types after an async projection's checkpoint is; 0 when caught up. */
export async function lagSeconds(pool: pg.Pool, projection: Projection): Promise<number> {
  const { rows } = await pool.query<{ oldest: Date | null }>(
    `select (select min(e.recorded_at) from events e
             where (e.transaction_id, e.position) > (c.major::text::xid8, c.minor::bigint) and e.type = any($2::text[])) as oldest
     from projection_checkpoints c where c.name = $1`,
    [projection.name, [...projection.handles]],
  );
  const oldest = rows[0]?.oldest;
  return oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : 0;
}
