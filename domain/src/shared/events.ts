/** Who did it and why: carried by every stored event (issue 2, item 2). */
export type EventMetadata = {
  readonly actorId: string | null;
  readonly requestId: string | null;
  readonly correlationId: string;
  readonly causationId: string | null;
  readonly occurredAt: string;
  /** The caller's Idempotency-Key (`<user>:<key>`), when the request carried one: stored with the events it caused. */
  readonly idempotencyKey?: string;
};

/** A domain event before it is stored: its schema version is the current one. */
export type DomainEvent<T extends string = string, D = unknown> = {
  readonly type: T;
  readonly data: D;
};

/** What the decider sees when it folds a stream: type and upcast data. */
export type StoredEventView = {
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: unknown;
};
