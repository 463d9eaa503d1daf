import { audit, systemAccess } from '@cairn/domain';
import type pg from 'pg';
import { comparePositions, encodePosition, startOfLog, type EventStore, type GlobalPosition, type RecordedEvent } from '../event-store/event-store.ts';
import { upcastEvent } from '../event-store/open-event-store.ts';
import { readActorEvents } from '../event-store/postgres-event-store.ts';

/** One line of an audit: the event, who and when, and what it changed. */
export type AuditEntry = {
  readonly event: RecordedEvent;
  readonly changes: Readonly<Record<string, audit.FieldChange>>;
};

export type AuditFilter = {
  /** Keyset: only events after this position. */
  readonly after?: GlobalPosition | undefined;
  readonly from?: Date | undefined;
  readonly to?: Date | undefined;
  readonly types?: readonly string[] | undefined;
  readonly limit: number;
};

function kept(event: RecordedEvent, filter: AuditFilter): boolean {
  if (filter.after && comparePositions(event.position, filter.after) <= 0) return false;
  const at = Date.parse(event.recordedAt);
  if (filter.from && at < filter.from.getTime()) return false;
  if (filter.to && at > filter.to.getTime()) return false;
  return !filter.types || filter.types.length === 0 || filter.types.includes(event.type);
}

/** The diffs need each stream's history from its start: views are folded per stream, in order. */
function withChanges(events: readonly RecordedEvent[]): AuditEntry[] {
  const views = new Map<string, audit.StreamView>();
  return events.map((event) => {
    const { view, changes } = audit.diffEvent(views.get(event.streamId) ?? {}, event.data);
    views.set(event.streamId, view);
    return { event, changes };
  });
}

/**
 * Every event of one entity, in log order: the streams named by its id (the asset's, its
 * notes', its relationships'...), and, for a user, what system administrators changed of
 * them (the `system_access` stream).
 */
export async function entityEvents(eventStore: EventStore, entityId: string): Promise<RecordedEvent[]> {
  const reads = await Promise.all(audit.entityStreamIds(entityId).map((id) => eventStore.readStream(id)));
  const events = reads.flatMap((r) => r.events);
  if (events.some((e) => e.streamId === `user-${entityId.toLowerCase()}`)) {
    const access = await eventStore.readStream(systemAccess.systemAccessStream);
    events.push(...access.events.filter((e) => (e.data as { userId?: string }).userId === entityId.toLowerCase()));
  }
  return events.sort((a, b) => comparePositions(a.position, b.position));
}

export async function entityHistory(eventStore: EventStore, entityId: string, filter: AuditFilter): Promise<AuditEntry[]> {
  return withChanges(await entityEvents(eventStore, entityId))
    .filter((entry) => kept(entry.event, filter))
    .slice(0, filter.limit);
}

/**
 * Every event one user caused, in log order. On PostgreSQL an index serves it; on
 * EventStoreDB the log is scanned. The diffs of an actor's events are within what the
 * actor's events show of each stream (the other actors' events are not read).
 */
export async function actorHistory(eventStore: EventStore, pool: pg.Pool | null, actorId: string, filter: AuditFilter): Promise<AuditEntry[]> {
  const found: RecordedEvent[] = [];
  let after = startOfLog;
  const page = 1000;
  for (;;) {
    let events: readonly RecordedEvent[];
    let through: GlobalPosition;
    let full: boolean;
    if (pool && eventStore.kind === 'postgres') {
      events = await readActorEvents(pool, upcastEvent, actorId, after, page);
      through = events.at(-1)?.position ?? after;
      full = events.length === page;
    } else {
      const read = await eventStore.readLog(after, page);
      events = read.events.filter((e) => e.metadata.actorId === actorId);
      ({ through, full } = read);
    }
    found.push(...events);
    after = through;
    const enough = found.filter((e) => kept(e, filter)).length >= filter.limit;
    if (!full || enough) break;
  }
  return withChanges(found)
    .filter((entry) => kept(entry.event, filter))
    .slice(0, filter.limit);
}

/** An entity's state at a moment, folded from its events with the deciders' own `evolve`. */
export async function entityStateAt(eventStore: EventStore, entityId: string, at: Date): Promise<{ kind: string; streamId: string; version: number; state: unknown } | null> {
  const events = (await entityEvents(eventStore, entityId)).filter((e) => Date.parse(e.recordedAt) <= at.getTime());
  // The entity's own stream (`asset-` before `asset-notes-`): the first kind whose stream has events and a fold.
  const byPrefix = [...audit.entityStreamKinds].sort((a, b) => a.prefix.length - b.prefix.length);
  for (const kind of byPrefix) {
    const streamId = `${kind.prefix}${entityId.toLowerCase()}`;
    const own = events.filter((e) => e.streamId === streamId);
    if (own.length === 0 || kind.fold === null) continue;
    const fold = kind.fold;
    const state = own.reduce((s, e) => fold.evolve(s, { type: e.type, data: e.data }), fold.initialState);
    return { kind: kind.kind, streamId, version: own.at(-1)?.streamVersion ?? 0, state: audit.stateAsJson(state) };
  }
  return null;
}

/** One audit entry as JSON (docs/audit.md): the command line's JSON lines and the API answer the same shape. */
export function auditEntryJson(entry: AuditEntry) {
  const { event } = entry;
  return {
    position: encodePosition(event.position),
    recorded_at: event.recordedAt,
    event_id: event.id,
    stream_id: event.streamId,
    stream_version: event.streamVersion,
    type: event.type,
    actor_id: event.metadata.actorId,
    request_id: event.metadata.requestId,
    correlation_id: event.metadata.correlationId,
    changes: entry.changes,
  };
}
