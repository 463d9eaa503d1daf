import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { GlobalPosition } from '../event-store/event-store.ts';
import type { IdempotentRequest } from './operation.ts';

/** The first answer to a keyed request, replayed to its retries. */
export type StoredResponse = { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: string | null };

export type IdempotencyStart =
  | { readonly kind: 'run'; readonly request: IdempotentRequest }
  | { readonly kind: 'replay'; readonly response: StoredResponse }
  | { readonly kind: 'mismatch' }
  | { readonly kind: 'busy' };

export type IdempotencyStore = {
  start(owner: string, key: string, fingerprint: string): Promise<IdempotencyStart>;
  /**
   * Keeps the answer (null: forget the attempt, so that a retry runs again). `fingerprint`,
   * when given, replaces the one of start: a streamed body is known only once it was read.
   */
  finish(owner: string, key: string, response: StoredResponse | null, fingerprint?: string): Promise<void>;
};

export const idempotencyHeader = 'Idempotency-Key';
/** A key is 1 to 255 visible ASCII characters. */
export const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;

/** What makes two requests the same: method, path, and the body as parsed. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(JSON.stringify([method, path, body ?? null])).digest('base64url');
}

const staleAfterMs = 60_000;
const waitForOtherMs = 10_000;
const pollMs = 50;

type Row = { fingerprint: string; status: number | null; headers: Record<string, string> | null; body: string | null; stale: boolean; started_at: string };
type EventRow = { stream_id: string; type: string; data: unknown; xid: string; position: string };

/**
 * Keys live in PostgreSQL, so every process and restart sees them. A request inserts its
 * key before it runs; a concurrent one with the same key waits for that answer. The
 * events a keyed request stores carry the key in their metadata (same transaction), so a
 * retry whose first attempt stored its events but never answered (a crash) finds them
 * and reuses them instead of writing again. `findEvents` is null where the log is not in
 * PostgreSQL (EventStoreDB): there only the stored answers protect retries.
 */
export function createIdempotencyStore(pool: pg.Pool, options: { findEvents: boolean }): IdempotencyStore {
  async function committedEvents(key: string): Promise<IdempotentRequest['committed']> {
    const committed = new Map<string, { events: { type: string; data: unknown }[]; position: GlobalPosition }>();
    if (!options.findEvents) return committed;
    const { rows } = await pool.query<EventRow>(
      `select events.stream_id, events.type, events.data, events.transaction_id::text as xid, events.position::text as position
       from events where events.metadata ? 'idempotencyKey' and events.metadata ->> 'idempotencyKey' = $1
       order by events.transaction_id, events.position`,
      [key],
    );
    for (const row of rows) {
      const entry = committed.get(row.stream_id) ?? { events: [], position: { major: 0n, minor: 0n } };
      entry.events.push({ type: row.type, data: row.data });
      entry.position = { major: BigInt(row.xid), minor: BigInt(row.position) };
      committed.set(row.stream_id, entry);
    }
    return committed;
  }

  const run = async (owner: string, key: string): Promise<IdempotencyStart> => {
    const scoped = `${owner}:${key}`;
    return { kind: 'run', request: { key: scoped, committed: await committedEvents(scoped), idsMade: 0 } };
  };

  return {
    async start(owner, key, fingerprint) {
      const deadline = Date.now() + waitForOtherMs;
      for (;;) {
        const inserted = await pool.query('insert into idempotency_keys (owner, key, fingerprint) values ($1, $2, $3) on conflict do nothing', [owner, key, fingerprint]);
        if (inserted.rowCount === 1) return run(owner, key);
        const { rows } = await pool.query<Row>(
          `select fingerprint, status, headers, body, started_at::text, started_at < now() - make_interval(secs => $3) as stale
           from idempotency_keys where owner = $1 and key = $2`,
          [owner, key, staleAfterMs / 1000],
        );
        const row = rows[0];
        if (!row) continue;
        if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
        if (row.status !== null) return { kind: 'replay', response: { status: row.status, headers: row.headers ?? {}, body: row.body } };
        if (row.stale) {
          // The attempt that inserted it died without answering: take it over, once.
          const taken = await pool.query('update idempotency_keys set started_at = now() where owner = $1 and key = $2 and status is null and started_at = $3::timestamptz', [owner, key, row.started_at]);
          if (taken.rowCount === 1) return run(owner, key);
        }
        if (Date.now() > deadline) return { kind: 'busy' };
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },

    async finish(owner, key, response, fingerprint) {
      if (!response) {
        await pool.query('delete from idempotency_keys where owner = $1 and key = $2 and status is null', [owner, key]);
        return;
      }
      await pool.query('update idempotency_keys set status = $3, headers = $4, body = $5, fingerprint = coalesce($6, fingerprint), finished_at = now() where owner = $1 and key = $2', [
        owner,
        key,
        response.status,
        JSON.stringify(response.headers),
        response.body,
        fingerprint ?? null,
      ]);
    },
  };
}
