import { createHash } from 'node:crypto';
import { encodePosition, type RecordedEvent } from '../event-store/event-store.ts';

/** JSON with every object's keys sorted: the same value always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export const chainStart = '0'.repeat(64);

/** What an exported line says of its event: everything the store keeps of it. */
export type ExportedEvent = {
  readonly position: string;
  readonly event_id: string;
  readonly stream_id: string;
  readonly stream_version: number;
  readonly type: string;
  readonly schema_version: number;
  readonly data: unknown;
  readonly metadata: unknown;
  readonly recorded_at: string;
};

/** One line of `cairn audit export`: the event, its digest, the previous line's digest and this line's. */
export type ChainLine = ExportedEvent & { readonly event_digest: string; readonly previous: string; readonly digest: string };

export function exportedEvent(event: RecordedEvent): ExportedEvent {
  return {
    position: encodePosition(event.position),
    event_id: event.id,
    stream_id: event.streamId,
    stream_version: event.streamVersion,
    type: event.type,
    schema_version: event.schemaVersion,
    data: event.data,
    metadata: event.metadata,
    recorded_at: event.recordedAt,
  };
}

export function eventDigest(event: ExportedEvent): string {
  const { position: _position, ...kept } = event;
  return sha256(canonicalJson(kept));
}

export function chainLine(event: ExportedEvent, previous: string): ChainLine {
  const digest = eventDigest(event);
  return { ...event, event_digest: digest, previous, digest: sha256(`${previous}${digest}`) };
}

/**
 * Checks one parsed line against the chain so far: its own digests, and its link to the
 * line before. Returns what is wrong, or null.
 */
export function lineProblem(line: ChainLine, previous: string): string | null {
  const { event_digest, previous: linked, digest, ...event } = line;
  if (linked !== previous) return 'its previous digest is not the digest of the line before it';
  if (eventDigest(event) !== event_digest) return 'its event does not match its event digest';
  if (sha256(`${previous}${event_digest}`) !== digest) return 'its digest is not the chain digest of the previous line and its event';
  return null;
}
