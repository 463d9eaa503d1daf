import { createHash } from 'node:crypto';
import type { Logger } from '@cairn/platform';
import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type pg from 'pg';
import { startOutboxRunner, type JobObserver, type JobPolicy } from './outbox-runner.ts';
import type { JobName } from './jobs.ts';
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
 * Jobs that run on slots of their own, apart from the others' two: webhook deliveries wait
 * on receivers, not on the CPU, and must not queue behind metadata extractions (nor hold
 * their slots). On BullMQ a lane is a queue of its own, `<queue>-<lane>`.
 */
export type JobLane = { readonly name: string; readonly jobs: readonly JobName[]; readonly concurrency: number };

/**
 * BullMQ on Redis when REDIS_URL is set: a relay moves due outbox jobs to the queue (with
 * their deterministic ids) after commit, and a BullMQ worker runs them, its attempts and
 * back-off applying to handler errors. Otherwise the outbox runner runs them here.
 */
export async function startWorkers(options: { redisUrl: string | undefined; pool: pg.Pool; handlers: JobHandlers; policy: JobPolicy; logger: Logger; relayPollMs?: number; queueName?: string | undefined; onJob?: JobObserver | undefined; lanes?: readonly JobLane[] }): Promise<Workers> {
  checkRegistry(options.handlers);
  const { pool, handlers, policy, logger } = options;
  const lanes = options.lanes ?? [];
  const laneJobs: string[] = lanes.flatMap((lane) => lane.jobs);
  if (!options.redisUrl) {
    const runners = [
      startOutboxRunner({ pool, handlers, policy, logger, onJob: options.onJob, selection: laneJobs.length > 0 ? { except: laneJobs } : {} }),
      ...lanes.map((lane) => startOutboxRunner({ pool, handlers, policy, logger, onJob: options.onJob, concurrency: lane.concurrency, selection: { only: lane.jobs } })),
    ];
    return {
      mode: 'in-process',
      async stop() {
        await Promise.all(runners.map((r) => r.stop()));
      },
    };
  }

  await probe(options.redisUrl);
  const connection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const queueName = await queueNameOf(pool, options.queueName);
  const runQueued = async (job: Job) => {
    const attempt = job.attemptsMade + 1;
    try {
      await runJob(handlers, job.name, job.data, { id: job.id ?? job.name, attempt, final: attempt >= policy.attempts });
    } catch (error) {
      options.onJob?.(job.name, 'failed');
      throw error;
    }
    options.onJob?.(job.name, 'succeeded');
    await pool.query('delete from job_outbox where id = $1', [job.id]);
  };
  const lines = [{ name: queueName, jobs: null as readonly string[] | null, concurrency: 2 }, ...lanes.map((lane) => ({ name: `${queueName}-${lane.name}`, jobs: lane.jobs as readonly string[], concurrency: lane.concurrency }))];
  const queues = lines.map((line) => ({ ...line, queue: new Queue(line.name, { connection }), worker: new Worker(line.name, runQueued, { connection, autorun: true, concurrency: line.concurrency }) }));
  for (const { worker } of queues) {
    worker.on('failed', (job, error) => {
      logger.warn('job failed', { job: job?.name, id: job?.id, attempt: job?.attemptsMade, error: error.message });
      if (job && job.attemptsMade >= policy.attempts) void pool.query('delete from job_outbox where id = $1', [job.id]).catch(() => undefined);
    });
  }
  const queueFor = (name: string) => (queues.find((q) => q.jobs?.includes(name)) ?? queues[0])?.queue as Queue;
  const relay = startRelay(pool, queueFor, policy, logger, options.relayPollMs ?? 250);
  return {
    mode: 'bullmq',
    queueName,
    async stop() {
      await relay.stop();
      for (const { worker } of queues) await worker.close();
      for (const { queue } of queues) await queue.close();
      connection.disconnect();
    },
  };
}

/** Due outbox jobs not yet handed over go to BullMQ; a crash between the two re-adds them, which the job id makes a no-op. */
function startRelay(pool: pg.Pool, queueFor: (name: string) => Queue, policy: JobPolicy, logger: Logger, pollMs: number): { stop(): Promise<void> } {
  let stopping = false;
  const loop = (async () => {
    while (!stopping) {
      try {
        const { rows } = await pool.query<{ id: string; name: string; payload: unknown }>(
          'select id, name, payload from job_outbox where relayed_at is null and run_after <= now() order by run_after, id limit 100',
        );
        if (rows.length > 0) {
          const byQueue = new Map<Queue, typeof rows>();
          for (const row of rows) byQueue.set(queueFor(row.name), [...(byQueue.get(queueFor(row.name)) ?? []), row]);
          for (const [queue, batch] of byQueue) {
            await queue.addBulk(batch.map((r) => ({ name: r.name, data: r.payload, opts: { jobId: r.id, attempts: policy.attempts, backoff: { type: 'exponential', delay: policy.backoffMs }, removeOnComplete: 1000, removeOnFail: 5000 } })));
          }
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
