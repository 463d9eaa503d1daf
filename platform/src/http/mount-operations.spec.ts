import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { ConsistencyWaiter } from '../consistency/consistency-waiter.ts';
import type { GlobalPosition } from '../event-store/event-store.ts';
import { errorHandler } from './error-handler.ts';
import { mountOperations } from './mount-operations.ts';
import { defineContract, implement } from './operation.ts';

const silent = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined } as unknown as Parameters<typeof errorHandler>[0];

/** One read operation and one write operation behind a waiter that never catches up. */
function app(head: GlobalPosition | null) {
  const waited: GlobalPosition[] = [];
  let headReads = 0;
  const waiter: ConsistencyWaiter = {
    waitFor: async (position) => {
      waited.push(position);
      return false;
    },
    isInline: () => false,
    close: async () => undefined,
  };
  const read = defineContract({ operationId: 't_read', method: 'get', path: '/t/', summary: 'read', tag: 't', side: 'query', authenticated: false, responses: { 200: { description: 'ok' } }, readModels: ['async-model'] });
  const write = defineContract({ operationId: 't_write', method: 'post', path: '/t/', summary: 'write', tag: 't', side: 'command', authenticated: false, responses: { 201: { description: 'ok' } }, readModels: [] });
  const a = express();
  mountOperations(a, [implement(read, async () => ({ status: 200, body: { ok: true } })), implement(write, async () => ({ status: 201, body: {}, position: { major: 9n, minor: 90n } }))], {
    authenticate: async () => null,
    trustedOrigins: new Set(),
    waiter,
    consistencyTimeoutMs: 50,
    bodyLimitBytes: 1024,
    ...(head
      ? {
          headPosition: async () => {
            headReads += 1;
            return head;
          },
        }
      : {}),
  });
  a.use(errorHandler(silent, 1024));
  return { app: a, waited, headReads: () => headReads };
}

describe('consistency tokens', () => {
  it('refuses a token beyond the head of the log at once, without waiting', async () => {
    const t = app({ major: 5n, minor: 50n });
    for (const token of ['5.1f', '6.0', 'zzzzzzzz.zzzzzzzz']) {
      const res = await request(t.app).get('/t/').set('X-Consistency-Token', token).expect(400);
      expect(res.body).toMatchObject({ status: 400, code: 'invalid_consistency_token' });
    }
    expect(t.waited).toEqual([]);
  });

  it('waits for a token at or below the head, and answers 503 when the read models stay behind', async () => {
    const t = app({ major: 5n, minor: 50n });
    for (const token of ['5.1e', '5.0', '0.0']) {
      const res = await request(t.app).get('/t/').set('X-Consistency-Token', token).expect(503);
      expect(res.body.code).toBe('consistency_timeout');
      expect(res.headers['retry-after']).toBe('1');
    }
    expect(t.waited).toHaveLength(3);
    // Read once; the others are at or below the head already read.
    expect(t.headReads()).toBe(1);
  });

  it('reads the head only for tokens beyond what it knows, and learns from its own writes', async () => {
    const t = app({ major: 9n, minor: 90n });
    await request(t.app).get('/t/').set('X-Consistency-Token', '9.1').expect(503);
    expect(t.headReads()).toBe(1);
    await request(t.app).get('/t/').set('X-Consistency-Token', '9.2').expect(503);
    expect(t.headReads()).toBe(1);
    const fresh = app({ major: 1n, minor: 1n });
    const written = await request(fresh.app).post('/t/').expect(201);
    expect(written.headers['x-consistency-token']).toBe('9.2i');
    await request(fresh.app).get('/t/').set('X-Consistency-Token', '9.2i').expect(503);
    expect(fresh.headReads()).toBe(0);
  });

  it('waits for every well-formed token when it cannot read the head', async () => {
    const t = app(null);
    await request(t.app).get('/t/').set('X-Consistency-Token', 'zzzzzzzz.zzzzzzzz').expect(503);
    expect(t.waited).toHaveLength(1);
  });
});
