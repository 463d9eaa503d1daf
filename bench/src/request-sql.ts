import { advisoryKey, runPipelined, statementName } from '@cairn/platform';
import type pg from 'pg';
import type { SqlTrace, TracedStatement } from './sql-trace.ts';

/** A statement as a request sent it: what the bare-SQL limit sends again. */
export type Statement = {
  readonly text: string;
  readonly name?: string | undefined;
  readonly values: readonly unknown[];
  /** Sent in one round trip with the statement before it, as the service does (queryInOneRoundTrip). */
  readonly pipelined?: boolean | undefined;
};

/** Statements no request sends: the service's background work (auth cache, waiters, purges, listeners). */
const background = /^\s*(listen|unlisten)\b|auth_invalidations|pg_snapshot_xmin|projection_checkpoints|pg_try_advisory_lock|order by events\.transaction_id desc|oidc_payloads.*expires_at <|delete from oidc/i;

/**
 * The statements the service (running in this process) sends for one request, in order:
 * everything traced between the request's start and its answer, less background work.
 */
export async function captureStatements<T>(trace: SqlTrace, send: () => Promise<T>): Promise<{ reply: T; statements: Statement[] }> {
  trace.start();
  let reply: T;
  try {
    reply = await send();
  } finally {
    trace.stop();
  }
  const statements = trace.statements
    .filter((s: TracedStatement) => !background.test(s.text))
    .map((s) => ({ text: s.text, name: s.name ?? keptPlanName(s.text), values: [...s.values], ...(s.pipelined ? { pipelined: true } : {}) }));
  return { reply, statements };
}

/**
 * A listing shape whose plan the service keeps once it has run a few times
 * (`keptPlan`, CAIRN_LISTING_PLANS_KEPT) is replayed as the service then sends it: named,
 * whether or not the captured run was one of its first.
 */
const keptPlanName = (text: string) => (text.startsWith('/* cairn:kept-plan') ? statementName(text) : undefined);

/** Every string (at any depth of arrays) with each `from` replaced by its `to`. */
function replaced(value: unknown, pairs: readonly (readonly [string, string])[]): unknown {
  if (typeof value === 'string') return pairs.reduce((text, [from, to]) => text.split(from).join(to), value);
  if (Array.isArray(value)) return value.map((v) => replaced(v, pairs));
  return value;
}

export function withValuesReplaced(statements: readonly Statement[], pairs: readonly (readonly [string, string])[]): Statement[] {
  return statements.map((s) => ({ ...s, values: s.values.map((v) => replaced(v, pairs)) }));
}

/**
 * The create's statements for another asset: ids replaced, and in `cairn_append` the
 * stream's advisory lock moved to the new stream's key, so that replays of one captured
 * create do not all queue on one lock.
 */
export function createForNewAsset(statements: readonly Statement[], pairs: readonly (readonly [string, string])[], oldStream: string, newStream: string): Statement[] {
  const [oldA, oldB] = advisoryKey(`stream:${oldStream}`);
  const [newA, newB] = advisoryKey(`stream:${newStream}`);
  return withValuesReplaced(statements, pairs).map((s) => {
    if (!/cairn_append(_checked)?\(/.test(s.text)) return s;
    const values = [...s.values];
    const a = [...(values[1] as number[])];
    const b = [...(values[2] as number[])];
    const at = a.findIndex((key, i) => key === oldA && b[i] === oldB);
    if (at >= 0) {
      a[at] = newA;
      b[at] = newB;
    }
    values[1] = a;
    values[2] = b;
    return { ...s, values };
  });
}

/**
 * Sends the statements one after another on one pooled connection, as plain `pg` would;
 * those the service pipelined go together in one round trip, as it sent them.
 */
export async function replay(pool: pg.Pool, statements: readonly Statement[]): Promise<void> {
  const client = await pool.connect();
  try {
    for (let i = 0; i < statements.length; i += 1) {
      const s = statements[i] as Statement;
      let end = i + 1;
      while (statements[end]?.pipelined) end += 1;
      if (end > i + 1 && s.name) {
        await runPipelined(client, statements.slice(i, end).map((p) => ({ name: p.name ?? '', text: p.text, values: [...p.values] })));
        i = end - 1;
      } else await client.query(s.name ? { name: s.name, text: s.text, values: [...s.values] } : { text: s.text, values: [...s.values] });
    }
  } finally {
    client.release();
  }
}
