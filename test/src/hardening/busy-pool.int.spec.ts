import { createPool, DatabaseBusyError } from '@cairn/platform';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.ts';
import { startFaultProxy } from '../support/fault-proxy.ts';

// A pool of one connection whose waits run out after 300 ms (docs/observability.md, "Connections").
const open = async () => createPool(await createTestDatabase(), 1, { connectTimeoutMs: 300 });

describe('a full pool’s wait that runs out', () => {
  let pool: Awaited<ReturnType<typeof open>> | undefined;
  afterEach(async () => {
    await pool?.end();
    pool = undefined;
  });

  it('is busy (DatabaseBusyError) when connections came back answered while it waited', async () => {
    pool = await open();
    // 30 statements of 50 ms on one connection: the last ones wait far past 300 ms while the others finish.
    // Half check out as pool.query does (a callback), half as Kysely does (pool.connect's promise).
    const checkedOut = async () => {
      const client = await pool!.connect();
      try {
        await client.query('select pg_sleep(0.05)');
      } finally {
        client.release();
      }
    };
    const outcomes = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => (i % 2 ? pool!.query('select pg_sleep(0.05)') : checkedOut())));
    const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(DatabaseBusyError);
      expect((failure as Error).message).toMatch(/^every connection of the pool stayed busy serving others for \d+ ms$/);
    }
    expect(failures.length).toBeLessThan(30);
  });

  it('is busy when every connection runs a statement longer than the wait: the server answers a connection of its own', async () => {
    pool = await open();
    const holding = pool.query('select pg_sleep(1.2)');
    await new Promise((r) => setTimeout(r, 20));
    const at = performance.now();
    const waited = await pool.query('select 1').then(() => undefined, (error: unknown) => error);
    expect(waited).toBeInstanceOf(DatabaseBusyError);
    // The wait, then a probe that a live server answers at once.
    expect(performance.now() - at).toBeLessThan(1_100);
    await expect(pool.connect()).rejects.toBeInstanceOf(DatabaseBusyError);
    await holding;
  });

  it('stays an outage (pg-pool’s own error) when nothing came back and the server answers no new connection either: a hung server', async () => {
    const proxy = await startFaultProxy(await createTestDatabase());
    try {
      pool = createPool(proxy.url, 1, { connectTimeoutMs: 300 });
      const held = await pool.connect();
      await proxy.set('swallow');
      const at = performance.now();
      const waited = await pool.query('select 1').then(() => undefined, (error: unknown) => error);
      expect(waited).not.toBeInstanceOf(DatabaseBusyError);
      expect((waited as Error).message).toBe('timeout exceeded when trying to connect');
      // The wait, then the probe's own bound (a second).
      expect(performance.now() - at).toBeLessThan(2_500);
      await proxy.set('pass');
      held.release();
      expect((await pool.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool?.end();
      pool = undefined;
      await proxy.close();
    }
  });
});
