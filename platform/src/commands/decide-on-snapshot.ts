import { conflict, type CommandContext, type DomainEvent } from '@cairn/domain';
import { WrongExpectedVersionError, type GlobalPosition, type EventStore } from '../event-store/event-store.ts';
import { appendDecided, type DecidedBatch } from './append-decided.ts';
import type { CommandMetadata } from './execute-command.ts';

/**
 * How often a decision on a read-model snapshot is tried again when the snapshot turned out
 * stale. Each loss means another write to the same stream landed, so N racing writers all
 * get an answer within N tries; the bound stops a pathological storm.
 */
const maxTries = 64;

/**
 * Decides on a fresh snapshot and appends with the snapshot's version expected
 * (docs/storage.md): `decide` reads the read model and returns the batches, or throws the
 * refusal. A stale snapshot reads and decides again; nothing to append answers null.
 */
export async function decideOnSnapshot(
  eventStore: EventStore,
  context: CommandContext,
  metadata: CommandMetadata,
  decide: () => Promise<readonly DecidedBatch[]>,
): Promise<{ position: GlobalPosition | null; events: DomainEvent[] }> {
  for (let attempt = 1; ; attempt += 1) {
    const batches = await decide();
    if (batches.every((b) => b.events.length === 0)) return { position: null, events: [] };
    try {
      const position = await appendDecided(eventStore, batches, context, metadata);
      return { position, events: batches.flatMap((b) => [...b.events]) };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      if (attempt >= maxTries) throw conflict('concurrent_modification', 'The resource was changed by many requests at once; try again.');
      // Behind an asynchronous projector the row catches up meanwhile; a little jitter spreads racers.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, attempt * 2)));
    }
  }
}
