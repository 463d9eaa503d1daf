import { randomUUID } from 'node:crypto';
import { comparePositions, type EventStore, type GlobalPosition, type NewEvent, type RecordedEvent } from '@cairn/platform';
import type pg from 'pg';
import { expect } from 'vitest';

export type RawEventRow = { streamId: string; type: string; schemaVersion: number; data: unknown };

export type ContractSubject = {
  store: EventStore;
  /** Stores an event as-is (any schema version), bypassing the store's append path. */
  insertRaw?: (row: RawEventRow) => Promise<void>;
  /** PostgreSQL only: the pool behind the store, for transactions held open by hand. */
  pool?: pg.Pool;
  close: () => Promise<void>;
};

const eventType = 'EventStoreContractHappened';
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function newEvent(data: Record<string, unknown> = {}): NewEvent {
  const id = randomUUID();
  return {
    id,
    type: eventType,
    schemaVersion: 1,
    data: { id, ...data },
    metadata: {
      actorId: randomUUID(),
      requestId: randomUUID(),
      correlationId: randomUUID(),
      causationId: randomUUID(),
      occurredAt: new Date().toISOString(),
    },
  };
}

export const batch = (count: number): NewEvent[] => Array.from({ length: count }, (_, i) => newEvent({ index: i }));
export const ids = (events: readonly { id: string }[]): string[] => events.map((e) => e.id);

export function expectStrictlyIncreasing(positions: readonly GlobalPosition[]): void {
  for (let i = 1; i < positions.length; i += 1) {
    const previous = positions[i - 1];
    const current = positions[i];
    if (!previous || !current) throw new Error('unreachable');
    expect(comparePositions(previous, current), `position ${i} must be after position ${i - 1}`).toBe(-1);
  }
}

/**
 * Follows the global log from `after` the way a projector does: pages of `limit`,
 * checkpoint moved to the last event of each page, until every id in `wanted` was seen
 * and a read came back empty, or the deadline passed. Returns the wanted events in the
 * order seen (duplicates included, so callers can count them), every event and position seen.
 */
export async function follow(
  store: EventStore,
  after: GlobalPosition,
  wanted: ReadonlySet<string>,
  options: { limit?: number; timeoutMs?: number } = {},
): Promise<{ events: RecordedEvent[]; all: RecordedEvent[]; positions: GlobalPosition[]; checkpoint: GlobalPosition }> {
  const limit = options.limit ?? 50;
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  const events: RecordedEvent[] = [];
  const all: RecordedEvent[] = [];
  const positions: GlobalPosition[] = [];
  const seen = new Set<string>();
  let checkpoint = after;
  while (Date.now() < deadline) {
    const page = await store.readAll(checkpoint, limit);
    expect(page.length).toBeLessThanOrEqual(limit);
    for (const event of page) {
      all.push(event);
      positions.push(event.position);
      checkpoint = event.position;
      if (wanted.has(event.id)) {
        events.push(event);
        seen.add(event.id);
      }
    }
    if (page.length === 0) {
      if (seen.size === wanted.size) break;
      await sleep(10);
    }
  }
  return { events, all, positions, checkpoint };
}

export async function expectRejection(promise: Promise<unknown>, errorClass: new (...args: never[]) => Error): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(errorClass);
}
