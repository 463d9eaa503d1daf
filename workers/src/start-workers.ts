import { createHash } from 'node:crypto';
import type { Logger } from '@cairn/platform';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type pg from 'pg';
import { startOutboxRunner, type JobObserver, type JobPolicy } from './outbox-runner.ts';
import { checkRegistry, runJob, type JobHandlers } from './registry.ts';

/**
 * The BullMQ queue of this deployment: named after its database (the cluster's system
 * identifier and the database's name), so deployments, or test databases, that share one
 * Redis never take each other's jobs. CAIRN_QUEUE_NAME overrides it.
 */
export async function queueNameOf(pool: pg.Pool, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  // pg_control_system() may be closed to unprivileged roles: the server's address stands in.
  const identity = await pool
    .query<{ id: string }>("select (select system_identifier::text from pg_control_system()) || '/' || current_database() as id")
    .catch(() => pool.query<{ id: string }>("select coalesce(host(inet_server_addr()), 'local') || ':' || coalesce(inet_server_port()::text, '') || '/' || current_database() as id"));
  return `cairn-${createHash('sha256').update(identity.rows[0]?.id ?? 'cairn').digest('hex').slice(0, 16)}`;
}

export type Workers = { stop(): Promise<void>; readonly mode: 'bullmq' | 'in-process'; readonly queueName?: string };

/**
 * BullMQ on Redis when REDIS_URL is set: a relay moves due outbox jobs to the queue (with
 * their deterministic ids) after commit, and a BullMQ worker runs them, its attempts and
 * back-off applying to handler errors. Otherwise the outbox runner runs them here.
 */
export async function startWorkers(options: { redisUrl: string | undefined; pool: pg.Pool; handlers: JobHandlers; policy: JobPolicy; logger: Logger; relayPollMs?: number; queueName?: string | undefined; onJob?: JobObserver | undefined }): Promise<Workers> {
  checkRegistry(options.handlers);
  const { pool, handlers, policy, logger } = options;
  if (!options.redisUrl) {
    const runner = startOutboxRunner({ pool, handlers, policy, logger, onJob: options.onJob });
    return { mode: 'in-process', stop: () => runner.stop() };
  }

  await probe(options.redisUrl);
  const connection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const queueName = await queueNameOf(pool, options.queueName);
  const queue = new Queue(queueName, { connection });
  const worker = new Worker(
    queueName,
    async (job) => {
      const attempt = job.attemptsMade + 1;
      try {
        await runJob(handlers, job.name, job.data, { id: job.id ?? job.name, attempt, final: attempt >= policy.attempts });
      } catch (error) {
        options.onJob?.(job.name, 'failed');
        throw error;
      }
      options.onJob?.(job.name, 'succeeded');
      await pool.query('delete from job_outbox where id = $1', [job.id]);
    },
    { connection, autorun: true, concurrency: 2 },
  );
  worker.on('failed', (job, error) => {
    logger.warn('job failed', { job: job?.name, id: job?.id, attempt: job?.attemptsMade, error: error.message });
    if (job && job.attemptsMade >= policy.attempts) void pool.query('delete from job_outbox where id = $1', [job.id]).catch(() => undefined);
  });
  const relay = startRelay(pool, queue, policy, logger, options.relayPollMs ?? 250);
  return {
    mode: 'bullmq',
    queueName,
    async stop() {
      await relay.stop();
      await worker.close();
      await queue.close();
      connection.disconnect();
    },
  };
}

/** Due outbox jobs not yet handed over go to BullMQ; a crash between the two re-adds them, which the job id makes a no-op. */
function startRelay(pool: pg.Pool, queue: Queue, policy: JobPolicy, logger: Logger, pollMs: number): { stop(): Promise<void> } {
  let stopping = false;
  const loop = (async () => {
    while (!stopping) {
      try {
        const { rows } = await pool.query<{ id: string; name: string; payload: unknown }>(
          'select id, name, payload from job_outbox where relayed_at is null and run_after <= now() order by run_after, id limit 100',
        );
        if (rows.length > 0) {
          await queue.addBulk(rows.map((r) => ({ name: r.name, data: r.payload, opts: { jobId: r.id, attempts: policy.attempts, backoff: { type: 'exponential', delay: policy.backoffMs }, removeOnComplete: 1000, removeOnFail: 5000 } })));
          await pool.query('update job_outbox set relayed_at = now() where id = any($1::text[])', [rows.map((r) => r.id)]);
          continue;
        }
      } catch (error) {
        logger.warn('job relay failed', { error: (error as Error).message });
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  })();
  return {
    async stop() {
      stopping = true;
      await loop;
    },
  };
}

/** Fails fast at boot when Redis cannot be reached, instead of retrying forever. */
async function probe(redisUrl: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: 5000 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(`Redis at ${redisUrl} cannot be reached: ${(error as Error).message}`, { cause: error });
  } finally {
    redis.disconnect();
  }
}
