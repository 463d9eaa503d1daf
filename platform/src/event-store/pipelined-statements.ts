import pg from 'pg';
// @ts-expect-error: pg ships no types for its value serializer, the one its own queries use.
import pgUtils from 'pg/lib/utils';

/** A statement sent by name: prepared on the connection the first time, bound and run after. */
export type NamedStatement = { readonly name: string; readonly text: string; readonly values: readonly unknown[] };

/** The parts of pg's connection a Submittable drives (as pg-cursor does). */
type Wire = {
  readonly parsedStatements: Record<string, string | undefined>;
  readonly stream: { cork(): void; uncork(): void };
  parse(message: { text: string; name: string }): void;
  bind(message: { statement: string; values: readonly unknown[]; valueMapper: (value: unknown) => unknown }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: Record<string, never>): void;
  sync(): void;
};

const prepareValue = (pgUtils as { prepareValue: (value: unknown) => unknown }).prepareValue;

/** What this file uses of pg's Query: it parses the rows and gathers one result per statement. */
type QueryInternals = {
  callback: (error: Error | null, results: pg.QueryResult | pg.QueryResult[]) => void;
  _canceledDueToError: unknown;
  handleReadyForQuery(connection: Wire): void;
};
const BaseQuery = pg.Query as unknown as new (config: { text: string }) => QueryInternals;

/**
 * Several statements in one round trip and one transaction: each is bound and executed,
 * then a single Sync ends the implicit transaction that the extended protocol opens
 * around them (PostgreSQL docs, "Pipelining"). A later statement sees what an earlier one
 * wrote; an error in any rolls all of them back. pg sends one query at a time and waits
 * for its answer, so this is a Submittable that writes the messages itself.
 */
export class Pipeline extends BaseQuery {
  readonly parsedHere: NamedStatement[] = [];

  readonly statements: readonly NamedStatement[];
  constructor(statements: readonly NamedStatement[]) {
    super({ text: statements.map((s) => s.name).join('; ') });
    this.statements = statements;
  }

  /** An Error returned (not thrown) is pg's way of refusing a query before anything is sent. */
  submit(wire: Wire): Error | null {
    // Every value is serialized before the first message goes out: a value that cannot be
    // must not leave the statements before it sent, and committed by the Sync.
    let values: unknown[][];
    try {
      values = this.statements.map((s) => s.values.map(prepareValue));
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
    wire.stream.cork();
    try {
      for (const [i, statement] of this.statements.entries()) {
        // The same statement twice in one pipeline is parsed once.
        if (wire.parsedStatements[statement.name] === undefined && !this.parsedHere.some((p) => p.name === statement.name)) {
          wire.parse({ text: statement.text, name: statement.name });
          this.parsedHere.push(statement);
        }
        wire.bind({ statement: statement.name, values: values[i] ?? [], valueMapper: (value) => value });
        wire.describe({ type: 'P', name: '' });
        wire.execute({});
      }
      wire.sync();
    } finally {
      wire.stream.uncork();
    }
    return null;
  }

  /** After a clean run every Parse we sent stands: the client's plain queries use those names too. */
  override handleReadyForQuery(wire: Wire): void {
    if (!this._canceledDueToError) for (const s of this.parsedHere) wire.parsedStatements[s.name] = s.text;
    super.handleReadyForQuery(wire);
  }
}

/** A pipeline that failed after preparing statements: which of them stood is unknown, so its connection must go. */
export class PipelineFailed extends Error {
  override readonly cause: unknown;
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.cause = cause;
  }
}

/** The statements on this client in one round trip and one transaction: each one's rows. */
export async function runPipelined(client: pg.ClientBase, statements: readonly NamedStatement[]): Promise<pg.QueryResultRow[][]> {
  const pipeline = new Pipeline(statements);
  const results = await new Promise<pg.QueryResult[]>((resolve, reject) => {
    pipeline.callback = (error, r) => {
      if (error) reject(pipeline.parsedHere.length > 0 ? new PipelineFailed(error) : error);
      else resolve(Array.isArray(r) ? r : [r]);
    };
    client.query(pipeline as unknown as pg.Submittable);
  });
  return results.map((r) => r.rows);
}

/**
 * Runs the statements on one pooled connection in one round trip and one transaction, and
 * gives each statement's rows. A connection whose prepared statements are in doubt after a
 * failure is closed rather than returned to the pool.
 */
export async function queryInOneRoundTrip(pool: pg.Pool, statements: readonly NamedStatement[]): Promise<pg.QueryResultRow[][]> {
  const client = await pool.connect();
  let release: boolean | Error = false;
  try {
    return await runPipelined(client, statements);
  } catch (error) {
    if (error instanceof PipelineFailed) {
      release = error;
      throw error.cause;
    }
    throw error;
  } finally {
    client.release(release);
  }
}

const begin: NamedStatement = { name: 'cairn_begin', text: 'begin', values: [] };
const commit: NamedStatement = { name: 'cairn_commit', text: 'commit', values: [] };

/**
 * The statements in one explicit transaction, then `afterCommit` once it has committed,
 * all in one round trip: what must be read after the commit (its WAL position) costs no
 * trip of its own. A Sync does not end an explicit transaction that failed, so after an
 * error the connection is rolled back, or closed when even that fails.
 */
export async function queryCommittedInOneRoundTrip(
  pool: pg.Pool,
  statements: readonly NamedStatement[],
  afterCommit: NamedStatement,
): Promise<{ results: pg.QueryResultRow[][]; afterCommit: pg.QueryResultRow[] }> {
  const client = await pool.connect();
  let release: boolean | Error = false;
  try {
    const all = await runPipelined(client, [begin, ...statements, commit, afterCommit]);
    return { results: all.slice(1, statements.length + 1), afterCommit: all.at(-1) ?? [] };
  } catch (error) {
    if (error instanceof PipelineFailed) {
      release = error;
      throw error.cause;
    }
    await client.query('rollback').catch((failure: unknown) => {
      release = failure instanceof Error ? failure : new Error(String(failure));
    });
    throw error;
  } finally {
    client.release(release);
  }
}
