import type { Logger } from '@cairn/platform';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { jobSchemas } from './jobs.ts';
import { checkRegistry, type JobHandlers } from './registry.ts';

export const queueName = 'cairn';

export type Workers = { stop(): Promise<void>; readonly mode: 'bullmq' | 'in-process' };

/**
 * BullMQ on Redis when REDIS_URL is set; otherwise the handlers run in this process.
 * Handler errors propagate so BullMQ's attempts and back-off apply.
 */
export async function startWorkers(options: { redisUrl: string | undefined; handlers: JobHandlers; logger: Logger }): Promise<Workers> {
  checkRegistry(options.handlers);
  if (!options.redisUrl) return { mode: 'in-process', stop: async () => undefined };

  await probe(options.redisUrl);
  const connection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const handlers = options.handlers as Record<string, (payload: unknown) => Promise<void>>;
  const worker = new Worker(
    queueName,
    async (job) => {
      const schema = (jobSchemas as Record<string, { parse(v: unknown): unknown }>)[job.name];
      const handler = handlers[job.name];
      if (!schema || !handler) throw new Error(`no handler for job ${job.name}`);
      await handler(schema.parse(job.data));
    },
    { connection, autorun: true },
  );
  worker.on('failed', (job, error) => options.logger.warn('job failed', { job: job?.name, id: job?.id, error: error.message }));
  return {
    mode: 'bullmq',
    async stop() {
      await worker.close();
      connection.disconnect();
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
