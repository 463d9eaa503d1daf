import type { ProjectedEvent } from '@cairn/platform';
import type { Projection } from './projection.ts';
import type { RowOp } from './row-ops.ts';
import { executeOps, type SqlRunner } from './sql-runner.ts';

/** An event a projection could not apply, with the error that stopped it. */
export class EventApplyError extends Error {
  override name = 'EventApplyError';
  constructor(
    readonly event: ProjectedEvent,
    cause: unknown,
  ) {
    super(`${event.type} ${event.id}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
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
  const { ops, applied } = projectEvents(projection, events);
  await executeOps(runner, ops);
  return applied;
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
