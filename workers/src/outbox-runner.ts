import type { Logger } from '@cairn/platform';
import type pg from 'pg';
import type { JobHandlers } from './registry.ts';
import { runJob } from './registry.ts';

export type JobPolicy = { readonly attempts: number; readonly backoffMs: number };

type OutboxRow = { id: string; name: string; payload: unknown; attempts: number };

/** How long a claimed job is this process's: past it (a process that died), another takes it up. */
const leaseMs = 5 * 60_000;

/**
 * Without Redis, the outbox itself is the queue (docs/jobs.md): each loop claims the next due
 * job with SKIP LOCKED and a lease, runs it, and deletes it; a failure waits its back-off,
 * and the last attempt's failure removes it. Several processes share the work safely.
 */
export type JobObserver = (job: string, outcome: 'succeeded' | 'failed') => void;

/** Which jobs a runner takes: those named in `only`, or every job but those in `except`. */
export type JobSelection = { readonly only?: readonly string[] | undefined; readonly except?: readonly string[] | undefined };

export function startOutboxRunner(options: { pool: pg.Pool; handlers: JobHandlers; policy: JobPolicy; logger: Logger; concurrency?: number; pollMs?: number; onJob?: JobObserver | undefined; selection?: JobSelection }): { stop(): Promise<void> } {
  const { pool, handlers, policy, logger } = options;
  let stopping = false;
  let wake: (() => void) | null = null;

  async function claim(): Promise<OutboxRow | null> {
    const { rows } = await pool.query<OutboxRow>(
      `update job_outbox set attempts = attempts + 1, lease_until = now() + make_interval(secs => $1::double precision / 1000)
       where id = (select id from job_outbox where run_after <= now() and (lease_until is null or lease_until < now())
                     and ($2::text[] is null or name = any($2::text[])) and ($3::text[] is null or name <> all($3::text[]))
                   order by run_after, id limit 1 for update skip locked)
       returning id, name, payload, attempts`,
      [leaseMs, options.selection?.only ?? null, options.selection?.except ?? null],
    );
    return rows[0] ?? null;
  }

  async function runOne(row: OutboxRow): Promise<void> {
    const final = row.attempts >= policy.attempts;
    try {
      await runJob(handlers, row.name, row.payload, { id: row.id, attempt: row.attempts, final });
      options.onJob?.(row.name, 'succeeded');
      await pool.query('delete from job_outbox where id = $1', [row.id]);
    } catch (error) {
      options.onJob?.(row.name, 'failed');
      const message = error instanceof Error ? error.message : String(error);
      logger.warn('job failed', { job: row.name, id: row.id, attempt: row.attempts, final, error: message });
      if (final) await pool.query('delete from job_outbox where id = $1', [row.id]);
      else {
        const delay = policy.backoffMs * 2 ** (row.attempts - 1);
        await pool.query(`update job_outbox set lease_until = null, last_error = $2, run_after = now() + make_interval(secs => $3::double precision / 1000) where id = $1`, [row.id, message.slice(0, 2000), delay]);
      }
    }
  }

  async function loop(): Promise<void> {
    while (!stopping) {
      let row: OutboxRow | null = null;
      try {
        row = await claim();
      } catch (error) {
        logger.warn('job outbox unreachable', { error: (error as Error).message });
      }
      if (row) {
        await runOne(row).catch((error: unknown) => logger.error('job outbox update failed', { error: (error as Error).message }));
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pollMs ?? 250);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  const loops = Array.from({ length: options.concurrency ?? 2 }, () => loop());
  return {
    async stop() {
      stopping = true;
      wake?.();
      await Promise.all(loops);
    },
  };
}
