import { Pipeline } from '@cairn/platform';
import pg from 'pg';

export type TracedStatement = {
  /** Which connection ran it: statements of one transaction share it. */
  readonly connection: number;
  readonly text: string;
  /** The prepared statement's name, when the caller named one. */
  readonly name?: string | undefined;
  readonly values: readonly unknown[];
  readonly start: number;
  end: number;
  rows: readonly Record<string, unknown>[] | null;
  failed: boolean;
  /** Sent in one round trip with the statement before it (a pipeline: queryInOneRoundTrip). */
  readonly pipelined?: boolean;
};

export type SqlTrace = {
  readonly statements: TracedStatement[];
  start(): void;
  stop(): void;
  /** Puts `pg.Client.prototype.query` back. */
  uninstall(): void;
};

type Callback = (error: Error | null, result?: pg.QueryResult) => void;
type QueryFn = (this: pg.Client, config: unknown, values?: unknown, callback?: unknown) => unknown;

/**
 * Records every statement any `pg.Client` of this process sends while started: its text,
 * parameters, connection, start and end (`performance.now()`), and its rows. Hooked on
 * the client prototype rather than on `resources.pool`, so that `pool.query` (which runs
 * on a pooled client) is counted once, and the pools and clients that `Resources` does not
 * expose (the listeners, the projector's lock connection) are seen too.
 */
export function installSqlTrace(): SqlTrace {
  const prototype = pg.Client.prototype as unknown as { query: QueryFn };
  const original = prototype.query;
  const statements: TracedStatement[] = [];
  const ids = new WeakMap<object, number>();
  let recording = false;
  let connections = 0;

  const connectionOf = (client: pg.Client) => {
    let id = ids.get(client);
    if (id === undefined) {
      id = connections += 1;
      ids.set(client, id);
    }
    return id;
  };

  // A pipeline's statements, each as its own entry, finishing together when it answers.
  const tracePipeline = (client: pg.Client, pipeline: Pipeline) => {
    const connection = connectionOf(client);
    const start = performance.now();
    const entries: TracedStatement[] = pipeline.statements.map((s, i) => ({ connection, text: s.text, name: s.name, values: s.values, start, end: Number.NaN, rows: null, failed: false, pipelined: i > 0 }));
    statements.push(...entries);
    const callback = pipeline.callback;
    pipeline.callback = (error, results) => {
      const each = Array.isArray(results) ? results : results ? [results] : [];
      entries.forEach((entry, i) => {
        entry.end = performance.now();
        entry.failed = error !== null;
        entry.rows = each[i]?.rows ?? null;
      });
      callback(error, results);
    };
    return original.call(client, pipeline);
  };

  prototype.query = function traced(this: pg.Client, config: unknown, values?: unknown, callback?: unknown) {
    const submittable = typeof config === 'object' && config !== null && typeof (config as { submit?: unknown }).submit === 'function';
    if (recording && config instanceof Pipeline) return tracePipeline(this, config);
    if (!recording || submittable) return original.call(this, config, values, callback);
    const id = connectionOf(this);
    const objectConfig = typeof config === 'object' && config !== null ? (config as { text?: string; name?: string; values?: unknown[] }) : null;
    const entry: TracedStatement = {
      connection: id,
      text: typeof config === 'string' ? config : (objectConfig?.text ?? ''),
      name: objectConfig?.name,
      values: Array.isArray(values) ? values : (objectConfig?.values ?? []),
      start: performance.now(),
      end: Number.NaN,
      rows: null,
      failed: false,
    };
    statements.push(entry);
    const finish = (error: Error | null, result?: pg.QueryResult) => {
      entry.end = performance.now();
      entry.failed = error !== null;
      entry.rows = result?.rows ?? null;
    };
    const cb = typeof values === 'function' ? (values as Callback) : typeof callback === 'function' ? (callback as Callback) : null;
    if (cb) {
      const wrapped: Callback = (error, result) => {
        finish(error, result);
        cb(error, result);
      };
      return typeof values === 'function' ? original.call(this, config, wrapped) : original.call(this, config, values, wrapped);
    }
    const pending = original.call(this, config, values) as Promise<pg.QueryResult>;
    return pending.then(
      (result) => {
        finish(null, result);
        return result;
      },
      (error: unknown) => {
        finish(error instanceof Error ? error : new Error(String(error)));
        throw error;
      },
    );
  };

  return {
    statements,
    start: () => {
      statements.length = 0;
      recording = true;
    },
    stop: () => {
      recording = false;
    },
    uninstall: () => {
      prototype.query = original;
    },
  };
}
