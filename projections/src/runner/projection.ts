import type { RecordedEvent } from '@cairn/platform';
import type { ReadTrx } from '../schema.ts';

/**
 * A read model kept from the log. `apply` runs inside the transaction that also moves the
 * checkpoint, so each event's effect lands exactly once; it must be deterministic (time
 * comes from the event, never from the clock). Bump `version` to have the runner rebuild.
 */
export type Projection = {
  readonly name: string;
  readonly version: number;
  readonly handles: readonly string[];
  /** Emptied before a rebuild. */
  readonly tables: readonly string[];
  apply(trx: ReadTrx, event: RecordedEvent): Promise<void>;
};
