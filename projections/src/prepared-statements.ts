import { routedPool, statementName, type ReadPools } from '@cairn/platform';
import { sql, type CompiledQuery, type QueryExecutorProvider, type RawBuilder } from 'kysely';
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

/**
 * A statement of one shape built and compiled once, its values put in at each call: building
 * and compiling a read by id with Kysely on every request cost more Node time than reading
 * its row. `build` gets a stand-in for each value (text no caller sends: it holds a NUL) and
 * must pass each one whole as a parameter; nothing else in the statement may depend on them.
 */
export function compiledOnce<K extends string, R>(db: QueryExecutorProvider, names: readonly K[], build: (values: Record<K, string>) => RawBuilder<R>): (values: Record<K, unknown>) => CompiledQuery<R> {
  const standIns = Object.fromEntries(names.map((name) => [name, `\u0000${name}`])) as Record<K, string>;
  const compiled = build(standIns).compile(db);
  const slots = compiled.parameters.map((value) => names.find((name) => standIns[name] === value));
  const misplaced = names.filter((name) => !slots.includes(name) || compiled.sql.includes(standIns[name]) || compiled.parameters.some((v) => typeof v === 'string' && v !== standIns[name] && v.includes(standIns[name])));
  if (misplaced.length > 0) throw new Error(`compiledOnce: ${misplaced.join(', ')} must each be a whole parameter of the statement`);
  const valueAt = (values: Record<K, unknown>, i: number) => {
    const slot = slots[i];
    return slot === undefined ? compiled.parameters[i] : values[slot];
  };
  return (values) => ({ ...compiled, parameters: compiled.parameters.map((_, i) => valueAt(values, i)) });
}

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
