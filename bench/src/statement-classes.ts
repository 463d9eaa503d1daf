/**
 * Which statement is which, by its text (and a parameter where the text is shared). One
 * table, first match wins: when the write path changes, this is the place that follows.
 *
 * `part` says which part of a write a statement belongs to when it runs outside a
 * transaction; inside one, the transaction's kind decides (see write-timeline.ts):
 * a transaction with an `append` statement is an append, one with a checkpoint lock or
 * move is a projector batch.
 */
export type Part = 'command' | 'append' | 'projector' | 'read model' | 'waiter' | 'read back' | 'transaction' | 'background';

export type StatementClass = {
  readonly name: string;
  readonly part: Part;
  readonly text: RegExp;
  /** A parameter that must match too (e.g. the channel of a shared `pg_notify`). */
  readonly param?: { readonly index: number; readonly value: RegExp };
};

export const statementClasses: readonly StatementClass[] = [
  // Today: the whole append (locks, version check, insert, inline read models) is one call.
  { name: 'append (cairn_append)', part: 'append', text: /\bcairn_append(_checked)?\(/i },
  // The append's insert first: after the rewrite it is one CTE that also reads the stream.
  { name: 'insert events', part: 'append', text: /insert into "?events"?\s*\(/i },
  // The command handler reads the stream, decides, appends.
  { name: 'stream read', part: 'command', text: /from "?events"? where "?events"?\."?stream_id"?/i },
  // After the rewrite: `begin; select pg_advisory_xact_lock(...)` as one simple query.
  { name: 'begin + advisory lock', part: 'append', text: /^\s*begin\b[\s\S]*pg_advisory_xact_lock/i },
  { name: 'advisory lock', part: 'append', text: /pg_advisory_xact_lock/i },
  { name: 'idempotency check', part: 'append', text: /from "?events"? where "?events"?\."?event_id"?/i },
  { name: 'stream version', part: 'append', text: /^\s*(insert into|update) "?streams"?\b/i },
  { name: 'append notify', part: 'append', text: /pg_notify/i, param: { index: 0, value: /^cairn_events$/ } },
  // The projector: where am I, what is new, lock, apply, move, announce.
  { name: 'checkpoint lock', part: 'projector', text: /from "?projection_checkpoints"?[\s\S]*\bfor update\b/i },
  { name: 'checkpoint move', part: 'projector', text: /^\s*update "?projection_checkpoints"?/i },
  { name: 'checkpoint select', part: 'projector', text: /^\s*select "major", "minor", "status" from "projection_checkpoints" where "name" = \$1\s*$/i },
  { name: 'log read', part: 'projector', text: /pg_snapshot_xmin/i },
  { name: 'progress notify', part: 'projector', text: /pg_notify/i, param: { index: 0, value: /^cairn_projections$/ } },
  // The consistency waiter asks where the projections are.
  { name: 'waiter', part: 'waiter', text: /^\s*select name, major::text, minor::text, status from projection_checkpoints/i },
  // The route reads its resource back from the read model.
  { name: 'read back', part: 'read back', text: /^\s*select [\s\S]* from "?funding_agencies"? where "?id"? = \$1/i },
  // Read-model writes: in a projector batch, or inline in an append (after the rewrite).
  { name: 'read-model write', part: 'read model', text: /^\s*(with [\s\S]*?\)\s*)?(insert into|update|delete from) "?(?!events\b|streams\b|projection_checkpoints\b)[a-z_]+"?/i },
  { name: 'begin', part: 'transaction', text: /^\s*begin\s*;?\s*$/i },
  { name: 'commit', part: 'transaction', text: /^\s*commit\s*;?\s*$/i },
  { name: 'rollback', part: 'transaction', text: /^\s*rollback\s*;?\s*$/i },
  // Polls and housekeeping that no write waits on.
  { name: 'head position', part: 'background', text: /order by events\.transaction_id desc/i },
  { name: 'checkpoints poll', part: 'background', text: /from "projection_checkpoints"/i },
  { name: 'projector locks', part: 'background', text: /pg_try_advisory_lock/i },
  { name: 'auth invalidations poll', part: 'background', text: /from auth_invalidations/i },
];

export const otherClass: StatementClass = { name: 'other', part: 'background', text: /.*/ };

export function classify(text: string, values: readonly unknown[]): StatementClass {
  for (const c of statementClasses) {
    if (!c.text.test(text)) continue;
    if (c.param && !c.param.value.test(String(values[c.param.index] ?? ''))) continue;
    return c;
  }
  return otherClass;
}
