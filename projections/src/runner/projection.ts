import type { ProjectedEvent } from '@cairn/platform';
import type { RowOp } from './row-ops.ts';

/**
 * A read model kept from the log. `project` says what one event does to its rows, as row
 * operations (`row-ops.ts`); it is pure and deterministic (time comes from the event, never
 * from the clock). The runner applies them: in the append's transaction (inline), or in
 * batches that move the checkpoint in the same transaction (async, and every rebuild).
 * Bump `version` to have the runner rebuild.
 */
export type Projection = {
  readonly name: string;
  readonly version: number;
  readonly handles: readonly string[];
  /** Copied for a rebuild and swapped in after it. */
  readonly tables: readonly string[];
  /**
   * Of `tables`, those whose reads walk an index alone (postings): vacuumed, not only
   * analyzed, before a rebuilt copy is swapped in, so that their walks read no rows from the
   * table (a copy's visibility map is empty until vacuumed; PostgreSQL then chose to gather
   * and sort a principal's postings instead of walking them). For small tables: a vacuum
   * reads the whole table.
   */
  readonly vacuumAfterRebuild?: readonly string[];
  /**
   * `inline` (the default): on the PostgreSQL event store, applied in the transaction of the
   * append, so writes answer without waiting for a projector. `async`: always by the
   * projector (for read models a write need not wait for, or too costly to keep per write).
   * On EventStoreDB every projection is async.
   */
  readonly lifecycle?: 'inline' | 'async';
  /**
   * Its rows depend on rows that other streams' events write (a read before a write):
   * inline appends that touch it then run one at a time, so that what each one reads is
   * what the log order says (docs/consistency.md).
   */
  readonly serialized?: boolean;
  /**
   * Of `tables`, those `projections verify` does not compare: a version that names the
   * state rather than holds it, which a live table written since an upgrade and a rebuild
   * may write differently (migration 0054).
   */
  readonly unverified?: readonly string[];
  /** False for a table that others change too (the job outbox): `projections verify` leaves it out unless named. */
  readonly verifiable?: boolean;
  /** From what the event is, never from where the log put it: inline appends plan before it is stored. */
  project(event: ProjectedEvent): readonly RowOp[];
};
