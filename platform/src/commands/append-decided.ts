import { timeOrderedId } from '../ids/time-ordered-id.ts';
import { currentVersionOf, eventCatalog, type CommandContext, type DomainEvent } from '@cairn/domain';
import { comparePositions, type EventStore, type ExpectedVersion, type GlobalPosition } from '../event-store/event-store.ts';
import { eventMetadataOf, type CommandMetadata } from './execute-command.ts';

export type DecidedBatch = { readonly streamId: string; readonly events: readonly DomainEvent[]; readonly expectedVersion: ExpectedVersion };

/**
 * Appends events decided elsewhere than on a folded stream (a decision on a read-model
 * snapshot whose version is the stream's: docs/storage.md), all streams at once. A
 * WrongExpectedVersionError means the snapshot was stale: the caller reads and decides again.
 */
export async function appendDecided(eventStore: EventStore, batches: readonly DecidedBatch[], context: CommandContext, metadata: CommandMetadata): Promise<GlobalPosition> {
  const eventMetadata = eventMetadataOf(context, metadata);
  const results = await eventStore.appendToStreams(
    batches
      .filter((b) => b.events.length > 0)
      .map((b) => ({
        streamId: b.streamId,
        expectedVersion: b.expectedVersion,
        events: b.events.map((e) => ({ id: timeOrderedId(), type: e.type, schemaVersion: currentVersionOf(eventCatalog, e.type), data: e.data, metadata: eventMetadata })),
      })),
  );
  const last = results.map((r) => r.position).sort(comparePositions).at(-1);
  if (!last) throw new Error('appendDecided was given no events');
  return last;
}
