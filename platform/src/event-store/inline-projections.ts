import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { ProjectedEvent, RecordedEvent } from './event-store.ts';

/** A transaction advisory lock in PostgreSQL's two-key space (apart from the one-key locks). */
export type AdvisoryLock = { readonly key: readonly [number, number]; readonly shared: boolean };

/**
 * Read models applied in the append's own transaction (PostgreSQL only): the write and its
 * read model commit together, so a write's response and every later read show it without
 * waiting for a projector (docs/consistency.md).
 */
export type InlineProjections = {
  /** The locks an append of these event types takes before it writes (see `lockStatement`). */
  locksFor(eventTypes: readonly string[]): readonly AdvisoryLock[];
  /**
   * The statements that apply these events to the inline read models, each with its rows
   * as one JSON text; null when a step must run inside the transaction itself (a read
   * before a write), and `apply` is used instead.
   */
  plan(events: readonly ProjectedEvent[]): readonly InlineStatement[] | null;
  /** Applies the appended events to the inline read models, on the append's connection. */
  apply(client: pg.ClientBase, events: readonly RecordedEvent[]): Promise<void>;
};

export type InlineStatement = { readonly text: string; readonly rows: string };

/** Two 32-bit keys from a name: collisions only make two unrelated writers wait for each other. */
export function advisoryKey(name: string): readonly [number, number] {
  const digest = createHash('sha256').update(name).digest();
  return [digest.readInt32BE(0), digest.readInt32BE(4)];
}

export const streamLock = (streamId: string): AdvisoryLock => ({ key: advisoryKey(`stream:${streamId}`), shared: false });

/**
 * The lock a projection's inline appliers share and its rebuild (and, for a projection
 * whose rows depend on other streams, each of its appliers) takes alone.
 */
export const projectionLockKey = (projectionName: string) => advisoryKey(`projection:${projectionName}`);

/** Each key once (alone wins over shared), in key order: writers never wait in a cycle. */
export function orderedLocks(locks: readonly AdvisoryLock[]): AdvisoryLock[] {
  const byKey = new Map<string, AdvisoryLock>();
  for (const lock of locks) {
    const id = `${lock.key[0]}:${lock.key[1]}`;
    const seen = byKey.get(id);
    if (!seen || (seen.shared && !lock.shared)) byKey.set(id, lock);
  }
  return [...byKey.values()].sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1]);
}

/**
 * One statement taking every lock, in key order so that two writers never wait for each
 * other in a cycle. Keys are numbers we computed, never client text, so they are inlined:
 * the statement then goes out with `begin` in one round trip.
 */
export function lockStatement(locks: readonly AdvisoryLock[]): string {
  const calls = orderedLocks(locks).map((l) => `pg_advisory_xact_lock${l.shared ? '_shared' : ''}(${l.key[0] | 0}, ${l.key[1] | 0})`);
  return `select ${calls.join(', ')}`;
}
