import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { ReadModelTables, ReadTrx } from '../schema.ts';
import { planSteps, statementFor } from './row-op-plan.ts';
import type { ReadExecutor, RowOp } from './row-ops.ts';

/** Where row operations run: a projector's transaction, or the append's connection. */
export type SqlRunner = {
  query(text: string, params: readonly unknown[]): Promise<void>;
  executor(): ReadExecutor;
};

/** Raw SQL on a Kysely transaction's connection, rows as they come. */
export function trxQuery(trx: ReadTrx) {
  return async <R>(text: string, params: readonly unknown[]): Promise<R[]> => (await trx.executeQuery<R>(CompiledQuery.raw(text, [...params]))).rows;
}

export function trxRunner(trx: ReadTrx): SqlRunner {
  return {
    async query(text, params) {
      await trx.executeQuery(CompiledQuery.raw(text, [...params]));
    },
    executor: () => trx,
  };
}

/** The append's own connection, inside its transaction: Kysely on it only if a custom step needs one. */
export function clientRunner(client: pg.ClientBase): SqlRunner {
  let kysely: ReadExecutor | null = null;
  return {
    async query(text, params) {
      await client.query(text, [...params]);
    },
    executor() {
      kysely ??= new Kysely<ReadModelTables>({
        dialect: new PostgresDialect({
          pool: {
            connect: async () => ({ query: client.query.bind(client) as pg.PoolClient['query'], release: () => undefined }),
            end: async () => undefined,
            options: {},
          },
        }),
      });
      return kysely;
    },
  };
}

export async function executeOps(runner: SqlRunner, ops: readonly RowOp[]): Promise<void> {
  for (const step of planSteps(ops)) {
    if (step.kind === 'custom') {
      await step.run(runner.executor());
      continue;
    }
    const { text, rows } = statementFor(step.ops);
    if (text) await runner.query(text, [JSON.stringify(rows)]);
  }
}
