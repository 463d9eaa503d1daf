import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { allocationSchema, contentSchema } from '@cairn/contract';
import { createRepository } from '@cairn/cli';
import { startWorkers, type Workers } from '@cairn/workers';
import request from 'supertest';
import { expect } from 'vitest';
import type { z } from 'zod';
import { bearer, type User } from '../support/api.ts';
import type { Harness } from '../support/harness.ts';

export type Allocation = z.output<typeof allocationSchema>;
export type Content = z.output<typeof contentSchema>;

/** An fs repository in a fresh temporary directory. */
export async function fsRepository(h: Harness, name: string): Promise<{ id: string; dir: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), `cairn-${name}-`));
  const { id } = await createRepository(h.resources, name, { kind: 'fs', path: dir });
  return { id, dir };
}

export async function grantAllocation(h: Harness, admin: User, body: { owner_type: string; owner_id: string; repository_id: string; limit_bytes: number }): Promise<Allocation> {
  const res = await request(h.commandApp).post('/api/allocations/').set(bearer(admin)).send(body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Allocation;
}

export function upload(h: Harness, caller: User, assetId: string, bytes: Buffer, options: { filename?: string; contentType?: string; repositoryId?: string } = {}) {
  const req = request(h.commandApp).post(`/api/assets/${assetId}/content/`).set(bearer(caller));
  if (options.repositoryId) req.field('repository_id', options.repositoryId);
  return req.attach('file', bytes, { filename: options.filename ?? 'data.bin', contentType: options.contentType ?? 'application/octet-stream' });
}

/** The job workers of the harness's process, in-process (outbox runner) or on BullMQ. */
export async function startJobWorkers(h: Harness, redisUrl?: string): Promise<Workers> {
  return startWorkers({ redisUrl, pool: h.resources.pool, handlers: h.resources.jobHandlers, lanes: [h.resources.webhookJobs.lane], policy: h.resources.config.jobs, logger: h.resources.logger, relayPollMs: 50 });
}

/** Polls until `check` gives a value (jobs run in the background). */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
