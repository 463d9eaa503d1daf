import { comparePositions, startOfLog, type EventStore, type GlobalPosition } from '@cairn/platform';
import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';
import type { Projection } from './projection.ts';
import type { RunnerOptions } from './projector.ts';
import { RebuildInterruptedError, RebuildSupersededError, rebuildBlueGreen } from './rebuild.ts';
import { isTransient } from './transient-errors.ts';

/**
 * From the start of the log, a projection with at least this many events to apply is
 * caught up the rebuild's way (docs/projections.md, "Catching up from the start").
 */
export const defaultBulkCatchUpEvents = 20_000;

/**
 * Whether a projection at `from` should be caught up the rebuild's way: it has applied
 * nothing yet (its checkpoint at the start of the log) and the log holds at least
 * `threshold` events of its types. Loading a copy with its keys only and building the other
 * indexes once is cheaper than updating every index row by row in the live tables, and the
 * blue-green swap serves the same rows a batch-by-batch catch-up would. Counted in SQL, so
 * only for the PostgreSQL event store; with EventStoreDB it catches up batch by batch. An
 * infinite threshold turns it off.
 */
export async function worthBulkCatchUp(
  options: { readonly db: ReadDb; readonly eventStore: EventStore },
  projection: Projection,
  from: GlobalPosition,
  threshold: number,
): Promise<boolean> {
  if (!Number.isFinite(threshold) || comparePositions(from, startOfLog) !== 0 || options.eventStore.kind !== 'postgres') return false;
  // Without tables of its own the copy holds nothing: its steps would write the live tables.
  if (projection.handles.length === 0 || projection.tables.length === 0) return false;
  const least = Math.max(1, Math.floor(threshold));
  const { rows } = await sql<{ n: string }>`select count(*) as n from (select 1 from events where type = any(${[...projection.handles]}::text[]) limit ${least}) as found`.execute(options.db);
  return Number(rows[0]?.n ?? 0) >= least;
}

/**
 * A projection that has applied nothing yet, with a long log to apply, is caught up the
 * rebuild's way. True when nothing is left for the batch-by-batch way to do now: the copy
 * was swapped in, another runner caught the projection up or stopped it meanwhile (the
 * caller reads its checkpoint again), or the signal stopped the copy (kept, to resume).
 * Whatever else stops the copy (an event it cannot apply, an index it cannot build) leaves
 * the live tables as they were, and the batch-by-batch way runs, finds the event and stops
 * there, as it would have anyway. Errors of the connection are thrown, to be tried again.
 */
export async function catchUpInBulk(options: RunnerOptions, projection: Projection, from: GlobalPosition, batchSize: number): Promise<boolean> {
  if (!(await worthBulkCatchUp(options, projection, from, options.bulkCatchUpEvents ?? defaultBulkCatchUpEvents))) return false;
  options.logger.info('projection catching up in bulk', { projection: projection.name });
  try {
    const { db, eventStore, logger, signal } = options;
    await rebuildBlueGreen({ db, eventStore, logger, batchSize, onlyFromStart: true, ...(signal ? { signal } : {}) }, projection);
    return true;
  } catch (error) {
    if (error instanceof RebuildSupersededError || error instanceof RebuildInterruptedError) return true;
    if (isTransient(error)) throw error;
    options.logger.warn('bulk catch-up stopped; going on batch by batch', { projection: projection.name, error: error instanceof Error ? error.message : String(error) });
    return false;
  }
}
