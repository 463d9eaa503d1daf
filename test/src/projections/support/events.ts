import { randomUUID } from 'node:crypto';
import { currentVersionOf, eventCatalog, fundingAgencies, type EventMetadata, type FundingAgencyId } from '@cairn/domain';
import type { AppendResult, EventStore, NewEvent } from '@cairn/platform';
import type pg from 'pg';

export type FaEvent = fundingAgencies.FundingAgencyEvent;
type FaFields = fundingAgencies.FundingAgencyFields;

/** One event to append: its stream, its domain event, its id and when it "happened". */
export type Planned = { readonly streamId: string; readonly id: string; readonly event: FaEvent; readonly occurredAt: string };

let clock = Date.parse('2024-03-01T08:00:00.000Z');
const nextOccurredAt = () => {
  clock += 1000;
  return new Date(clock).toISOString();
};

function metadata(occurredAt: string): EventMetadata {
  return { actorId: null, requestId: null, correlationId: randomUUID(), causationId: null, occurredAt };
}

function toNewEvent(planned: Planned): NewEvent {
  return {
    id: planned.id,
    type: planned.event.type,
    schemaVersion: currentVersionOf(eventCatalog, planned.event.type),
    data: planned.event.data,
    metadata: metadata(planned.occurredAt),
  };
}

function changesFor(i: number, k: number): Partial<FaFields> {
  switch (k % 4) {
    case 0:
      return { name: `Agency ${i} rev ${k}` };
    case 1:
      return { abbreviation: `A${i}R${k}`, url: `https://agency-${i}.example.org/v${k}` };
    case 2:
      return { catalogId: `catalog-${i}-${k}` };
    default:
      return { name: `Agency ${i} (renamed ${k})`, url: `https://renamed-${i}-${k}.example.org` };
  }
}

function createdEvent(id: FundingAgencyId, name: string, i = 0): FaEvent {
  return { type: 'FundingAgencyCreated', data: { id, name, abbreviation: `A${i}`, url: `https://agency-${i}.example.org`, catalogId: `catalog-${i}` } };
}

export function plannedCreate(name: string, i = 0): Planned {
  const id = randomUUID() as FundingAgencyId;
  return { streamId: fundingAgencies.fundingAgencyStream(id), id: randomUUID(), event: createdEvent(id, name, i), occurredAt: nextOccurredAt() };
}

/** One history per stream: a create, some updates, maybe a delete. */
export function planHistories(streams: number, shape: (i: number) => { updates: number; deleted: boolean }): Planned[][] {
  const histories: Planned[][] = [];
  for (let i = 0; i < streams; i += 1) {
    const id = randomUUID() as FundingAgencyId;
    const streamId = fundingAgencies.fundingAgencyStream(id);
    const { updates, deleted } = shape(i);
    const events: FaEvent[] = [createdEvent(id, `Agency ${i}`, i)];
    for (let k = 1; k <= updates; k += 1) events.push({ type: 'FundingAgencyUpdated', data: { id, changes: changesFor(i, k) } });
    if (deleted) events.push({ type: 'FundingAgencyDeleted', data: { id } });
    histories.push(events.map((event) => ({ streamId, id: randomUUID(), event, occurredAt: nextOccurredAt() })));
  }
  return histories;
}

/** Round robin over the histories, so consecutive events belong to different streams. */
export function interleave(histories: readonly (readonly Planned[])[]): Planned[] {
  const out: Planned[] = [];
  const longest = Math.max(0, ...histories.map((h) => h.length));
  for (let step = 0; step < longest; step += 1) {
    for (const history of histories) {
      const planned = history[step];
      if (planned) out.push(planned);
    }
  }
  return out;
}

/** Appends one event per call, in the given order, with exact expected versions. */
export async function appendInOrder(eventStore: EventStore, planned: readonly Planned[]): Promise<AppendResult[]> {
  const versions = new Map<string, number>();
  const results: AppendResult[] = [];
  for (const p of planned) {
    const version = versions.get(p.streamId) ?? 0;
    const result = await eventStore.appendToStream(p.streamId, [toNewEvent(p)], { expectedVersion: version === 0 ? 'none' : version });
    versions.set(p.streamId, result.nextExpectedVersion);
    results.push(result);
  }
  return results;
}

/** Inserts an event row by hand, as a writer that bypasses the store (no NOTIFY). */
export async function insertRawEvent(
  client: pg.ClientBase,
  row: { eventId: string; streamId: string; streamVersion: number; type: string; schemaVersion: number; data: unknown; occurredAt: string },
): Promise<{ transactionId: bigint; position: bigint }> {
  const { rows } = await client.query<{ transaction_id: string; position: string }>(
    `insert into events (event_id, stream_id, stream_version, type, schema_version, data, metadata)
     values ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb)
     returning transaction_id::text, position`,
    [row.eventId, row.streamId, row.streamVersion, row.type, row.schemaVersion, JSON.stringify(row.data), JSON.stringify(metadata(row.occurredAt))],
  );
  const inserted = rows[0];
  if (!inserted) throw new Error('insert returned no row');
  return { transactionId: BigInt(inserted.transaction_id), position: BigInt(inserted.position) };
}
