import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type pg from 'pg';
import { queueNameOf } from './start-workers.ts';

export type QueueHealth = { readonly redisVersion: string; readonly queueName: string; readonly counts: Readonly<Record<string, number>> };

/**
 * What `cairn doctor` reports of Redis and this deployment's BullMQ queue: Redis answers,
 * its version, and the queue's jobs by state. Gives up after `timeoutMs` instead of
 * retrying for ever as a worker does.
 */
export async function inspectQueue(redisUrl: string, pool: pg.Pool, configuredName: string | undefined, timeoutMs = 5000): Promise<QueueHealth> {
  const connection = new Redis(redisUrl, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 1, retryStrategy: () => null });
  // ioredis reports a refused connection as an event too; the failed command says it.
  connection.on('error', () => undefined);
  try {
    await connection.connect();
    const info = await connection.info('server');
    const redisVersion = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
    const queueName = await queueNameOf(pool, configuredName);
    const queue = new Queue(queueName, { connection });
    try {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed');
      return { redisVersion, queueName, counts };
    } finally {
      await queue.close();
    }
  } finally {
    connection.disconnect();
  }
}
