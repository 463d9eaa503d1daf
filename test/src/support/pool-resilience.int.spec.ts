import { createPool } from '@cairn/platform';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from './database.ts';

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
