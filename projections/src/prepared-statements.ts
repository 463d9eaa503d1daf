import { routedPool, statementName, type ReadPools } from '@cairn/platform';
import { sql } from 'kysely';
import type pg from 'pg';

const marker = '/* cairn:prepared */';

/**
 * Put first in a statement whose shape never changes and whose plan does not depend on its
 * parameters (a read by key): it is then prepared once per connection under a name made
 * from its text, and PostgreSQL soon reuses one plan instead of planning it on every call
 * (planning was more than half of a read by id). Not for listings: their plans depend on
 * who asks (docs/assets.md).
 */
export const preparedStatement = sql.raw(marker);

type Query = (config: unknown, values?: unknown) => unknown;

/** A compiled statement as a named one, to run elsewhere (after an append, in its round trip); named from its text. */
export function namedStatement(compiled: { readonly sql: string; readonly parameters: readonly unknown[] }): { name: string; text: string; values: readonly unknown[] } {
  return { name: statementName(compiled.sql), text: compiled.sql, values: compiled.parameters };
}

/**
 * A pool for Kysely whose clients send marked statements as named (prepared) ones. Each
 * connection comes from the server the current request reads from (`routedPool`: a
 * standby chosen for a read, docs/consistency.md "Standbys"), else from `pool`.
 */
export function preparingPool(pool: pg.Pool, kind: keyof ReadPools = 'plain') {
  return {
    async connect() {
      const client = await routedPool(kind, pool).connect();
      const query = client.query.bind(client) as Query;
      return Object.assign(Object.create(client) as pg.PoolClient, {
        query: ((config: unknown, values?: unknown) =>
          typeof config === 'string' && config.startsWith(marker) ? query({ name: statementName(config), text: config, values }) : query(config, values)) as pg.PoolClient['query'],
        release: (error?: Error | boolean) => client.release(error),
      });
    },
    end: () => pool.end(),
    options: pool.options,
  };
}
