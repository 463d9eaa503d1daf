import { createLogger } from '@cairn/platform';
import { checkRegistry, startWorkers } from '@cairn/workers';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';

const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const logger = createLogger('silent');

describe('workers', () => {
  it('run on BullMQ when REDIS_URL is set', async () => {
    const workers = await startWorkers({ redisUrl, handlers: {}, logger });
    expect(workers.mode).toBe('bullmq');
    const redis = new Redis(redisUrl);
    expect(await redis.ping()).toBe('PONG');
    redis.disconnect();
    await workers.stop();
  });

  it('run in-process without Redis', async () => {
    const workers = await startWorkers({ redisUrl: undefined, handlers: {}, logger });
    expect(workers.mode).toBe('in-process');
    await workers.stop();
  });

  it('refuse to boot with a handler for a job nobody declared', () => {
    expect(() => checkRegistry({ 'no-such-job': async () => undefined })).toThrow(/unknown handlers \[no-such-job\]/);
  });

  it('refuse to boot when Redis cannot be reached', async () => {
    await expect(startWorkers({ redisUrl: 'redis://127.0.0.1:1', handlers: {}, logger })).rejects.toThrow();
  }, 30_000);
});
