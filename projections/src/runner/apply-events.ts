import type { ProjectedEvent } from '@cairn/platform';
import type { Projection } from './projection.ts';
import type { RowOp } from './row-ops.ts';
import { executeOps, executeStatements, opStatements, type OpStatement, type SqlRunner } from './sql-runner.ts';

/** An event a projection could not apply, with the error that stopped it. */
export class EventApplyError extends Error {
  override name = 'EventApplyError';
  readonly event: ProjectedEvent;
  constructor(
    event: ProjectedEvent,
    cause: unknown,
  ) {
    super(`${event.type} ${event.id}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.event = event;
  }
}

/** The row operations of the events the projection handles; how many events that was. */
export function projectEvents(projection: Projection, events: readonly ProjectedEvent[]): { ops: RowOp[]; applied: number } {
  const ops: RowOp[] = [];
  let applied = 0;
  for (const event of events) {
    if (!projection.handles.includes(event.type)) continue;
    try {
      ops.push(...projection.project(event));
    } catch (error) {
      throw new EventApplyError(event, error);
    }
    applied += 1;
  }
  return { ops, applied };
}

/** Applies a batch with as few statements as keep its meaning; returns how many events it handled. */
export async function applyEvents(runner: SqlRunner, projection: Projection, events: readonly ProjectedEvent[]): Promise<number> {
  return applyPlanned(runner, planBatch(projection, events));
}

/** A batch worked out before its transaction: its statements and how many events it handled, or why it cannot be applied. */
export type PlannedBatch = { readonly statements: readonly OpStatement[]; readonly applied: number } | { readonly error: EventApplyError };

/**
 * The projection's statements for a batch, computed in Node with no database: a runner can
 * work out the next batch while the database applies this one.
 */
export function planBatch(projection: Projection, events: readonly ProjectedEvent[]): PlannedBatch {
  try {
    const { ops, applied } = projectEvents(projection, events);
    return { statements: opStatements(ops), applied };
  } catch (error) {
    if (error instanceof EventApplyError) return { error };
    throw error;
  }
}

export async function applyPlanned(runner: SqlRunner, planned: PlannedBatch): Promise<number> {
  if ('error' in planned) throw planned.error;
  await executeStatements(runner, planned.statements);
  return planned.applied;
}

/**
 * After a batch failed: the same events one at a time, so the error names the event that
 * caused it. Runs in a transaction the caller rolls back.
 */
export async function findFailingEvent(runner: SqlRunner, projection: Projection, events: readonly ProjectedEvent[]): Promise<EventApplyError | null> {
  for (const event of events) {
    if (!projection.handles.includes(event.type)) continue;
    try {
      await executeOps(runner, projection.project(event));
    } catch (error) {
      return new EventApplyError(event, error);
    }
  }
  return null;
}
