import { randomUUID } from 'node:crypto';
import { currentVersionOf, eventCatalog, fundingAgencies } from '@cairn/domain';
import type { NewEvent } from '@cairn/platform';

/** A `FundingAgencyCreated` as the create route records it (same fields, same metadata). */
export function fundingAgencyCreated(n: number, id: string = randomUUID()): NewEvent & { readonly streamId: string } {
  return {
    id: randomUUID(),
    streamId: fundingAgencies.fundingAgencyStream(id),
    type: 'FundingAgencyCreated',
    schemaVersion: currentVersionOf(eventCatalog, 'FundingAgencyCreated'),
    data: { id, name: `Bench agency ${n}`, abbreviation: `BA${n}`, url: 'https://example.org', catalogId: '' },
    metadata: { actorId: randomUUID(), requestId: randomUUID(), correlationId: randomUUID(), causationId: randomUUID(), occurredAt: new Date().toISOString() },
  };
}

/** The `funding_agencies` row the projection writes for it. */
export function fundingAgencyRow(n: number, id: string = randomUUID()) {
  const at = new Date().toISOString();
  return { id, name: `Bench agency ${n}`, abbreviation: `BA${n}`, url: 'https://example.org', catalog_id: '', created_at: at, updated_at: at };
}
