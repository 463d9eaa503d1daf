import type { Decider, DomainEvent } from '@cairn/domain';
import type { EventStore } from '../event-store/event-store.ts';

/** A stream folded by its decider's `evolve`, with the version to append at (decideOnSnapshot's batches). */
export async function foldStream<E extends DomainEvent, S>(eventStore: EventStore, streamId: string, decider: Pick<Decider<never, E, S>, 'initialState' | 'evolve'>): Promise<{ state: S; version: number }> {
  const stream = await eventStore.readStream(streamId);
  const state = stream.events.reduce((s, e) => decider.evolve(s, { type: e.type, data: e.data } as E), decider.initialState);
  return { state, version: stream.version };
}
