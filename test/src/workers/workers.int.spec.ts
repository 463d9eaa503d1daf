import { createLogger, createPool } from '@cairn/platform';
import { checkRegistry, queueNameOf, startWorkers, type JobHandlers } from '@cairn/workers';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { createTestDatabase } from '../support/database.ts';

const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const logger = createLogger('silent');
const policy = { attempts: 2, backoffMs: 10 };
const handlers: JobHandlers = { 'extract-metadata': async () => undefined, 'migrate-asset': async () => undefined, 'purge-asset-content': async () => undefined, 'expire-upload': async () => undefined, 'webhook-deliver': async () => undefined, 'webhook-replay': async () => undefined };
let pool: pg.Pool;

beforeAll(async () => {
  pool = createPool(await createTestDatabase(), 4);
});
afterAll(async () => {
  await pool.end();
});

describe('workers', () => {
  it('run on BullMQ when REDIS_URL is set', async () => {
    const workers = await startWorkers({ redisUrl, pool, handlers, policy, logger });
    expect(workers.mode).toBe('bullmq');
    const redis = new Redis(redisUrl);
    expect(await redis.ping()).toBe('PONG');
    redis.disconnect();
    await workers.stop();
  });

  it('name the BullMQ queue after the database, so deployments sharing a Redis stay apart', async () => {
    const other = createPool(await createTestDatabase(), 1);
    try {
      const mine = await queueNameOf(pool, undefined);
      expect(mine).toMatch(/^cairn-[0-9a-f]{16}$/);
      expect(await queueNameOf(pool, undefined)).toBe(mine);
      expect(await queueNameOf(other, undefined)).not.toBe(mine);
      expect(await queueNameOf(pool, 'chosen')).toBe('chosen');
    } finally {
      await other.end();
    }
  });

  it('run in-process without Redis', async () => {
    const workers = await startWorkers({ redisUrl: undefined, pool, handlers, policy, logger });
    expect(workers.mode).toBe('in-process');
    await workers.stop();
  });

  it('refuse to boot with a handler for a job nobody declared', () => {
    expect(() => checkRegistry({ ...handlers, 'no-such-job': async () => undefined })).toThrow(/unknown handlers \[no-such-job\]/);
  });

  it('refuse to boot when a declared job has no handler', async () => {
    const { 'migrate-asset': _missing, ...partial } = handlers;
    await expect(startWorkers({ redisUrl: undefined, pool, handlers: partial as JobHandlers, policy, logger })).rejects.toThrow(/missing handlers \[migrate-asset\]/);
  });

  it('refuse to boot when Redis cannot be reached', async () => {
    await expect(startWorkers({ redisUrl: 'redis://127.0.0.1:1', pool, handlers, policy, logger })).rejects.toThrow();
  }, 30_000);
});
