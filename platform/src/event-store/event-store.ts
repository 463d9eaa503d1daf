import type { EventMetadata } from '@cairn/domain';

/**
 * A point in the global log. PostgreSQL: (writing transaction id, position);
 * EventStoreDB: (commit position, prepare position). Compared as a pair, major first.
 */
export type GlobalPosition = { readonly major: bigint; readonly minor: bigint };

export const startOfLog: GlobalPosition = { major: 0n, minor: 0n };

export function comparePositions(a: GlobalPosition, b: GlobalPosition): number {
  if (a.major !== b.major) return a.major < b.major ? -1 : 1;
  if (a.minor !== b.minor) return a.minor < b.minor ? -1 : 1;
  return 0;
}

/** `none`: the stream must not exist; a number: the stream must be at exactly that version. */
export type ExpectedVersion = 'any' | 'none' | number;

export type NewEvent = {
  readonly id: string;
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: unknown;
  readonly metadata: EventMetadata;
};

/** What a projection sees of an event: enough to apply it before the log assigns its position. */
export type ProjectedEvent = NewEvent & { readonly streamId: string };

export type RecordedEvent = NewEvent & {
  readonly streamId: string;
  /** 1 for the first event of a stream. */
  readonly streamVersion: number;
  readonly position: GlobalPosition;
  readonly recordedAt: string;
};

export type StreamBatch = { readonly streamId: string; readonly events: readonly NewEvent[]; readonly expectedVersion: ExpectedVersion };

export type AppendResult = {
  /** The stream's version after the append (its last event's streamVersion). */
  readonly nextExpectedVersion: number;
  /** The position of the last appended event: the consistency token of the write. */
  readonly position: GlobalPosition;
  /** The rows of the `readAfter` statement, when the store ran it in the append's transaction. */
  readonly readAfter?: readonly Record<string, unknown>[];
};

/**
 * A read to run right after the append, in its transaction and its round trip, so that it
 * sees the inline read models' rows for the new events: a write's answer without a second
 * trip to the database. A store that cannot (EventStoreDB, an append that takes the
 * explicit transaction, a retry that found the events stored) leaves it out of the result.
 */
export type ReadAfterAppend = { readonly name: string; readonly text: string; readonly values: readonly unknown[] };

export type AppendOptions = { readonly expectedVersion: ExpectedVersion; readonly readAfter?: ReadAfterAppend | undefined };

/** `full`: the scan stopped at the limit, so more may follow at once (whatever `events` holds after filtering). */
export type LogPage = { readonly events: readonly RecordedEvent[]; readonly through: GlobalPosition; readonly full: boolean };

export type StreamRead = { readonly version: number; readonly events: readonly RecordedEvent[] };

export type EventStore = {
  readonly kind: 'postgres' | 'eventstoredb';
  appendToStream(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult>;
  /**
   * Appends to several streams as one: all or none (PostgreSQL: one transaction, one
   * WrongExpectedVersionError for any stream that moved). EventStoreDB has no transaction
   * across streams: there the batches go one by one, each with its version check.
   */
  appendToStreams(batches: readonly StreamBatch[]): Promise<AppendResult[]>;
  readStream(streamId: string): Promise<StreamRead>;
  /** Events strictly after `after`, in global order, never skipping one still in flight. */
  readAll(after: GlobalPosition, limit: number): Promise<readonly RecordedEvent[]>;
  /**
   * What a follower reads: the events of the given types (all when absent) after `after`, and
   * `through`, the position up to which the log has been scanned: a follower's checkpoint
   * may move there even when the last events scanned were of other types.
   */
  readLog(after: GlobalPosition, limit: number, types?: readonly string[]): Promise<LogPage>;
  /** The position of the newest committed event: readers reach it once older transactions end. */
  headPosition(): Promise<GlobalPosition>;
  /**
   * Whether a position lies past anything this log has handed out (an event's, or a scan's
   * `through`): a forged one, after which a reader would wait for events that never come.
   */
  isBeyondLog(position: GlobalPosition): Promise<boolean>;
  /** Calls `onAppend` (without the events) whenever something may have been appended. */
  watch(onAppend: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
};

export class WrongExpectedVersionError extends Error {
  override name = 'WrongExpectedVersionError';
  readonly streamId: string;
  readonly expected: ExpectedVersion;
  constructor(
    streamId: string,
    expected: ExpectedVersion,
  ) {
    super(`stream ${streamId} is not at the expected version ${String(expected)}`);
    this.streamId = streamId;
    this.expected = expected;
  }
}

/** Some, but not all, of a batch's event ids are already stored: a client bug, never retried. */
export class IdempotencyConflictError extends Error {
  override name = 'IdempotencyConflictError';
}

export function encodePosition(position: GlobalPosition): string {
  return `${position.major.toString(36)}.${position.minor.toString(36)}`;
}

/** The largest parts a position may have: a transaction id is 64 bits unsigned, a position within the log a signed 64-bit integer. */
const maxMajor = (1n << 64n) - 1n;
const maxMinorPart = (1n << 63n) - 1n;

/** Null for text that is not a position, and for one whose parts no log can hold (the database would refuse them). */
export function decodePosition(token: string): GlobalPosition | null {
  const match = /^([0-9a-z]{1,14})\.([0-9a-z]{1,14})$/.exec(token);
  if (!match) return null;
  const parse = (s: string) => [...s].reduce((n, c) => n * 36n + BigInt(parseInt(c, 36)), 0n);
  const position = { major: parse(match[1] ?? ''), minor: parse(match[2] ?? '') };
  return position.major > maxMajor || position.minor > maxMinorPart ? null : position;
}
