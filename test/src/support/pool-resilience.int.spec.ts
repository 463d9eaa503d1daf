import { createPool, inTransaction } from '@cairn/platform';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from './database.ts';
import { startFaultProxy } from './fault-proxy.ts';

describe('the connection pool', () => {
  it('survives a connection terminated while checked out: the query fails, the process goes on', async () => {
    const url = await createTestDatabase();
    const pool = createPool(url, 2);
    const client = await pool.connect();
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    const killer = new pg.Client({ connectionString: url });
    await killer.connect();
    // Settled into a value at once, so the rejection is never unhandled while we wait.
    const pending = client.query('select pg_sleep(5)').then(
      () => null,
      (error: unknown) => error,
    );
    await new Promise((r) => setTimeout(r, 100));
    await killer.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
    expect(await pending).toBeInstanceOf(Error);
    client.release(true);
    await killer.end();
    // Still alive, and the pool hands out a working connection.
    expect((await pool.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
    await pool.end();
  });
});

describe('the connection settings', () => {
  it('turns JIT off on every connection, before its first statement, and a pool of one connection keeps it', async () => {
    const url = await createTestDatabase();
    const pool = createPool(url, 1);
    const seen = await Promise.all([1, 2, 3].map(async () => (await pool.query<{ jit: string }>('show jit')).rows[0]?.jit));
    expect(seen).toEqual(['off', 'off', 'off']);
    const client = await pool.connect();
    expect((await client.query<{ jit: string }>('show jit')).rows[0]?.jit).toBe('off');
    client.release(true);
    // A new connection after a dropped one gets it too.
    expect((await pool.query<{ jit: string }>('show jit')).rows[0]?.jit).toBe('off');
    await pool.end();
  });
});

describe('the pool bounds (CAIRN_DB_CONNECT_TIMEOUT_MS, CAIRN_DB_QUERY_TIMEOUT_MS)', () => {
  const settle = <T>(work: Promise<T>) => work.then(() => null, (error: unknown) => error);

  it('a slow statement is cancelled by the server at the query timeout; a pool without one lets it run', async () => {
    const url = await createTestDatabase();
    const bounded = createPool(url, 1, { queryTimeoutMs: 300 });
    const unbounded = createPool(url, 1);
    const failure = await settle(bounded.query('select pg_sleep(1)'));
    expect(failure).toBeInstanceOf(pg.DatabaseError);
    expect((failure as pg.DatabaseError).code).toBe('57014');
    // Long work (rebuilds, migrations, the command line) goes through pools without the bound.
    expect((await unbounded.query<{ done: boolean }>('select true as done from pg_sleep(0.5)')).rows).toEqual([{ done: true }]);
    // The cancelled statement left the bounded pool usable.
    expect((await bounded.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
    await bounded.end();
    await unbounded.end();
  });

  it('a server that takes connections and answers nothing fails a new connection at the connect timeout, and an open one at the query timeout', async () => {
    const proxy = await startFaultProxy(await createTestDatabase());
    const pool = createPool(proxy.url, 1, { connectTimeoutMs: 300, queryTimeoutMs: 300 });
    const held = await pool.connect();
    await proxy.set('swallow');
    let at = Date.now();
    const stalled = await settle(held.query('select 1'));
    expect((stalled as Error).message).toBe('Query read timeout');
    // The client's own timer waits a moment longer than the server's cancel would.
    expect(Date.now() - at).toBeLessThan(3000);
    held.release(stalled as Error);
    at = Date.now();
    const unopened = await settle(pool.query('select 1'));
    expect((unopened as Error).message).toMatch(/timeout/);
    expect(Date.now() - at).toBeLessThan(3000);
    await proxy.set('pass');
    expect((await pool.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
    await pool.end();
    await proxy.close();
  });

  it('inTransaction drops a connection that could not roll back instead of handing it to the next caller', async () => {
    const proxy = await startFaultProxy(await createTestDatabase());
    const pool = createPool(proxy.url, 1, { queryTimeoutMs: 200 });
    const failure = await settle(
      inTransaction(pool, async (client) => {
        await proxy.set('swallow');
        await client.query('select 1');
      }),
    );
    expect((failure as Error).message).toBe('Query read timeout');
    expect(pool.totalCount).toBe(0);
    await proxy.set('pass');
    expect((await pool.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
    await pool.end();
    await proxy.close();
  });
});
