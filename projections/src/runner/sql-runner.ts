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
  await executeStatements(runner, opStatements(ops));
}

/**
 * A batch's statements, each with its rows as JSON text, or a custom step to run in order.
 * `plain`: an insert without its ON CONFLICT clause, the same where no row of its keys
 * exists yet (a rebuild's copy tries it first: the check before each row was a tenth of
 * the database's time).
 */
export type OpStatement =
  | { readonly kind: 'statement'; readonly text: string; readonly rows: string; readonly plain?: string }
  | { readonly kind: 'custom'; readonly run: (db: ReadExecutor) => Promise<void> };

/** The statements of row operations, worked out without the database (so ahead of the transaction that runs them). */
export function opStatements(ops: readonly RowOp[]): OpStatement[] {
  const statements: OpStatement[] = [];
  for (const step of planSteps(ops)) {
    if (step.kind === 'custom') statements.push(step);
    else {
      const { text, rows, plain } = statementFor(step.ops);
      if (text) statements.push(plain ? { kind: 'statement', text, rows: JSON.stringify(rows), plain } : { kind: 'statement', text, rows: JSON.stringify(rows) });
    }
  }
  return statements;
}

export async function executeStatements(runner: SqlRunner, statements: readonly OpStatement[]): Promise<void> {
  for (const statement of statements) {
    if (statement.kind === 'custom') await statement.run(runner.executor());
    else await runner.query(statement.text, [statement.rows]);
  }
}
