import type { EventMetadata, StoredEventView } from '@cairn/domain';
import pg from 'pg';
import {
  IdempotencyConflictError,
  WrongExpectedVersionError,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type GlobalPosition,
  type NewEvent,
  type RecordedEvent,
  type StreamRead,
} from './event-store.ts';

type Upcast = <E extends StoredEventView>(event: E) => E;

type EventRow = {
  position: string;
  xid: string;
  event_id: string;
  stream_id: string;
  stream_version: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: EventMetadata;
  recorded_at: Date;
};

// The transaction id leaves as text under a name of its own: an output column named
// `transaction_id` would shadow the xid8 column in `order by`, sorting it as text
// ('1000' before '999') and losing events at every power of ten.
const eventColumns =
  'events.position, events.transaction_id::text as xid, events.event_id, events.stream_id, events.stream_version, events.type, events.schema_version, events.data, events.metadata, events.recorded_at';

/**
 * The global log after a position, served by the (transaction_id, position) index: only
 * events of transactions older than every one still running, so none can appear behind it.
 */
export const readAllSql = `select ${eventColumns} from events
  where (events.transaction_id, events.position) > ($1::text::xid8, $2::bigint)
    and events.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
  order by events.transaction_id, events.position
  limit $3`;

export const headPositionSql =
  'select events.transaction_id::text as xid, events.position from events order by events.transaction_id desc, events.position desc limit 1';
export const appendChannel = 'cairn_events';

export function createPostgresEventStore(pool: pg.Pool, upcast: Upcast, connectionString: string): EventStore {
  const toRecorded = (row: EventRow): RecordedEvent =>
    upcast({
      id: row.event_id,
      type: row.type,
      schemaVersion: row.schema_version,
      data: row.data,
      metadata: row.metadata,
      streamId: row.stream_id,
      streamVersion: Number(row.stream_version),
      position: { major: BigInt(row.xid), minor: BigInt(row.position) },
      recordedAt: row.recorded_at.toISOString(),
    });

  async function findStored(client: pg.PoolClient, streamId: string, events: readonly NewEvent[]): Promise<AppendResult | null> {
    const { rows } = await client.query<{ stream_id: string; stream_version: string; xid: string; position: string }>(
      'select events.stream_id, events.stream_version, events.transaction_id::text as xid, events.position from events where events.event_id = any($1::uuid[]) order by events.stream_version',
      [events.map((e) => e.id)],
    );
    if (rows.length === 0) return null;
    const last = rows[rows.length - 1];
    if (rows.length !== events.length || rows.some((r) => r.stream_id !== streamId) || !last) {
      throw new IdempotencyConflictError(`some of the events of this append to ${streamId} are already stored`);
    }
    return { nextExpectedVersion: Number(last.stream_version), position: { major: BigInt(last.xid), minor: BigInt(last.position) } };
  }

  async function reserveVersions(client: pg.PoolClient, streamId: string, count: number, expected: ExpectedVersion): Promise<number> {
    let result: pg.QueryResult<{ version: string }>;
    if (expected === 'any') {
      result = await client.query(
        `insert into streams (stream_id, version) values ($1, $2)
         on conflict (stream_id) do update set version = streams.version + excluded.version returning version`,
        [streamId, count],
      );
    } else if (expected === 'none' || expected === 0) {
      result = await client.query('insert into streams (stream_id, version) values ($1, $2) on conflict do nothing returning version', [streamId, count]);
    } else {
      // A concurrent writer holding the row makes this wait, then see the new version and match nothing.
      result = await client.query('update streams set version = version + $2 where stream_id = $1 and version = $3 returning version', [streamId, count, expected]);
    }
    const row = result.rows[0];
    if (!row) throw new WrongExpectedVersionError(streamId, expected);
    return Number(row.version);
  }

  async function appendOnce(streamId: string, events: readonly NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const already = await findStored(client, streamId, events);
      if (already) {
        await client.query('rollback');
        return already;
      }
      const lastVersion = await reserveVersions(client, streamId, events.length, expected);
      const first = lastVersion - events.length + 1;
      const { rows } = await client.query<{ position: string; transaction_id: string }>(
        `insert into events (event_id, stream_id, stream_version, type, schema_version, data, metadata)
         select e.id, $1, e.version, e.type, e.schema_version, e.data, e.metadata
         from unnest($2::uuid[], $3::bigint[], $4::text[], $5::int[], $6::jsonb[], $7::jsonb[])
           as e(id, version, type, schema_version, data, metadata)
         order by e.version
         returning position, transaction_id::text`,
        [
          streamId,
          events.map((e) => e.id),
          events.map((_, i) => first + i),
          events.map((e) => e.type),
          events.map((e) => e.schemaVersion),
          events.map((e) => JSON.stringify(e.data)),
          events.map((e) => JSON.stringify(e.metadata)),
        ],
      );
      // Delivered on commit only; followers then read what became visible.
      await client.query('select pg_notify($1, $2)', [appendChannel, '']);
      await client.query('commit');
      const last = rows.reduce((a, b) => (BigInt(a.position) > BigInt(b.position) ? a : b));
      return { nextExpectedVersion: lastVersion, position: { major: BigInt(last.transaction_id), minor: BigInt(last.position) } };
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  return {
    kind: 'postgres',

    async appendToStream(streamId, events, { expectedVersion }) {
      if (events.length === 0) throw new Error('nothing to append');
      try {
        return await appendOnce(streamId, events, expectedVersion);
      } catch (error) {
        // The same event ids raced in from a retry (meeting on the event id, or on the
        // stream version the first attempt moved): the first one won, answer as it did.
        const raced = (error instanceof pg.DatabaseError && error.constraint === 'events_event_id_key') || error instanceof WrongExpectedVersionError;
        if (raced) {
          const client = await pool.connect();
          try {
            const stored = await findStored(client, streamId, events);
            if (stored) return stored;
          } finally {
            client.release();
          }
        }
        if (error instanceof pg.DatabaseError && error.constraint === 'events_stream_version_key') {
          throw new WrongExpectedVersionError(streamId, expectedVersion);
        }
        throw error;
      }
    },

    async readStream(streamId): Promise<StreamRead> {
      const { rows } = await pool.query<EventRow>(`select ${eventColumns} from events where events.stream_id = $1 order by events.stream_version`, [streamId]);
      const events = rows.map(toRecorded);
      return { version: events.at(-1)?.streamVersion ?? 0, events };
    },

    async readAll(after: GlobalPosition, limit: number) {
      const { rows } = await pool.query<EventRow>(readAllSql, [after.major.toString(), after.minor.toString(), limit]);
      return rows.map(toRecorded);
    },

    async headPosition() {
      const { rows } = await pool.query<{ xid: string; position: string }>(headPositionSql);
      const row = rows[0];
      return row ? { major: BigInt(row.xid), minor: BigInt(row.position) } : { major: 0n, minor: 0n };
    },

    async watch(onAppend) {
      return listen(connectionString, appendChannel, onAppend);
    },

    async close() {
      /* the pool belongs to the caller */
    },
  };
}

/**
 * A dedicated connection that LISTENs on a channel and reconnects when it drops; the
 * callback also runs after a reconnect, since notifications may have been missed.
 */
export async function listen(connectionString: string, channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString, application_name: `cairn-listen-${channel}` });
    next.on('notification', (message) => onNotify(message.payload ?? ''));
    next.on('error', () => {
      if (client !== next) return;
      client = null;
      next.end().catch(() => undefined);
      reconnect();
    });
    try {
      await next.connect();
      await next.query(`listen ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      next.end().catch(() => undefined);
      throw error;
    }
    if (stopped) {
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
  };

  const reconnect = () => {
    if (stopped) return;
    retry = setTimeout(() => {
      connect()
        .then(() => onNotify(''))
        .catch(() => reconnect());
    }, 500);
  };

  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    const current = client;
    client = null;
    await current?.end().catch(() => undefined);
  };
}
