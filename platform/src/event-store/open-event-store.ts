import { createUpcaster, eventCatalog } from '@cairn/domain';
import type pg from 'pg';
import type { EventStore } from './event-store.ts';
import type { InlineProjections } from './inline-projections.ts';
import { createEventStoreDbEventStore } from './eventstoredb-event-store.ts';
import { createPostgresEventStore } from './postgres-event-store.ts';

export const upcastEvent = createUpcaster(eventCatalog);

/** PostgreSQL unless EVENTSTORE_URL names an EventStoreDB server. */
export function openEventStore(options: { pool: pg.Pool; databaseUrl: string; eventStoreUrl: string | undefined; inline?: InlineProjections | undefined; announce?: boolean }): EventStore {
  if (options.eventStoreUrl) return createEventStoreDbEventStore(options.eventStoreUrl, upcastEvent);
  return createPostgresEventStore(options.pool, upcastEvent, options.databaseUrl, { inline: options.inline, announce: options.announce ?? true });
}
