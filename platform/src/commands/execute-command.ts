import { timeOrderedId } from '../ids/time-ordered-id.ts';
import { conflict, currentVersionOf, eventCatalog, type CommandContext, type Decider, type DomainEvent, type EventMetadata } from '@cairn/domain';
import { comparePositions, WrongExpectedVersionError, type EventStore, type GlobalPosition, type ReadAfterAppend } from '../event-store/event-store.ts';

export type CommandMetadata = {
  readonly requestId: string | null;
  readonly correlationId: string;
  readonly causationId: string | null;
  /** Stored with the events when the request carried an Idempotency-Key. */
  readonly idempotencyKey?: string | undefined;
};

export type CommandOutcome<E, S> = {
  readonly events: readonly E[];
  readonly state: S;
  /** The appended events' position; when nothing changed, the stream's last event (null for an empty stream). */
  readonly position: GlobalPosition | null;
  /** The rows of the read asked to run in the append's transaction, when the store ran it there. */
  readonly readAfter?: readonly Record<string, unknown>[] | undefined;
};

const maxAttempts = 4;

/** Who did it and why, as every event of the command carries it. */
export function eventMetadataOf(context: CommandContext, metadata: CommandMetadata): EventMetadata {
  return {
    actorId: context.actor.userId,
    requestId: metadata.requestId,
    correlationId: metadata.correlationId,
    causationId: metadata.causationId,
    occurredAt: context.now,
    ...(metadata.idempotencyKey ? { idempotencyKey: metadata.idempotencyKey } : {}),
  };
}

/**
 * Load, fold, decide, append with the version that was read. A write that loses the race
 * decides again on the fresh history; after a few lost races the caller gets a conflict.
 */
export async function executeCommand<C, E extends DomainEvent, S>(
  eventStore: EventStore,
  decider: Decider<C, E, S>,
  streamId: string,
  command: C,
  context: CommandContext,
  metadata: CommandMetadata,
  options: { newStream?: boolean; readAfter?: ReadAfterAppend | undefined } = {},
): Promise<CommandOutcome<E, S>> {
  for (let attempt = 1; ; attempt += 1) {
    // A stream named by an id made for this request cannot exist yet: decide on the empty
    // history and let the append's `none` check prove it (a lost bet reads and retries).
    const stream = options.newStream && attempt === 1 ? { version: 0, events: [] } : await eventStore.readStream(streamId);
    const state = stream.events.reduce((s, e) => decider.evolve(s, { type: e.type, data: e.data } as E), decider.initialState);
    const events = decider.decide(command, state, context);
    // Nothing changed: the token is the stream's last event, which reads already reflect.
    if (events.length === 0) return { events, state, position: stream.events.at(-1)?.position ?? null };

    const eventMetadata = eventMetadataOf(context, metadata);
    try {
      const result = await eventStore.appendToStream(
        streamId,
        events.map((e) => ({ id: timeOrderedId(), type: e.type, schemaVersion: currentVersionOf(eventCatalog, e.type), data: e.data, metadata: eventMetadata })),
        { expectedVersion: stream.version === 0 ? 'none' : stream.version, readAfter: options.readAfter },
      );
      return { events, state: events.reduce(decider.evolve, state), position: result.position, readAfter: result.readAfter };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      if (attempt >= maxAttempts) throw conflict('concurrent_modification', 'The resource was changed by another request; try again.');
    }
  }
}

/** One decision of a multi-stream command: the stream and the command for it. */
export type StreamCommand<C> = { readonly streamId: string; readonly command: C };

/**
 * The same decider on several streams, all or nothing: every stream is read and decided
 * first (one refusal refuses all), then the events go out in one atomic append
 * (appendToStreams). A lost race on any stream decides them all again.
 */
export async function executeCommands<C, E extends DomainEvent, S>(
  eventStore: EventStore,
  decider: Decider<C, E, S>,
  steps: readonly StreamCommand<C>[],
  context: CommandContext,
  metadata: CommandMetadata,
): Promise<{ readonly events: readonly E[]; readonly position: GlobalPosition | null }> {
  for (let attempt = 1; ; attempt += 1) {
    const decided = await Promise.all(
      steps.map(async ({ streamId, command }) => {
        const stream = await eventStore.readStream(streamId);
        const state = stream.events.reduce((s, e) => decider.evolve(s, { type: e.type, data: e.data } as E), decider.initialState);
        return { streamId, version: stream.version, last: stream.events.at(-1)?.position ?? null, events: decider.decide(command, state, context) };
      }),
    );
    const changed = decided.filter((d) => d.events.length > 0);
    if (changed.length === 0) {
      const positions = decided.map((d) => d.last).filter((p): p is GlobalPosition => p !== null);
      return { events: [], position: positions.sort(comparePositions).at(-1) ?? null };
    }
    const eventMetadata = eventMetadataOf(context, metadata);
    try {
      const results = await eventStore.appendToStreams(
        changed.map((d) => ({
          streamId: d.streamId,
          events: d.events.map((e) => ({ id: timeOrderedId(), type: e.type, schemaVersion: currentVersionOf(eventCatalog, e.type), data: e.data, metadata: eventMetadata })),
          expectedVersion: d.version === 0 ? ('none' as const) : d.version,
        })),
      );
      const positions = results.map((r) => r.position).sort(comparePositions);
      return { events: changed.flatMap((d) => d.events), position: positions.at(-1) ?? null };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      if (attempt >= maxAttempts) throw conflict('concurrent_modification', 'The resources were changed by another request; try again.');
    }
  }
}
