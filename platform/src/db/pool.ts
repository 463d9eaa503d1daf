import pg from 'pg';

export type Database = pg.Pool;
export type DbClient = pg.PoolClient;

/**
 * `statementTimeoutMs`: PostgreSQL cancels any statement of this pool's connections that
 * runs longer (SQLSTATE 57014). It is sent once, in each connection's startup message,
 * so it costs no round trip per query (the costly reads' pool, docs/asset-query.md).
 */
export function createPool(connectionString: string, max = 10, options: { statementTimeoutMs?: number } = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, application_name: 'cairn', ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}) });
  // A connection that drops (a restart, a failover, a terminated backend) must not crash
  // the process: idle clients report it on the pool, checked-out ones on themselves. The
  // query in flight still fails, and its caller handles that.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
