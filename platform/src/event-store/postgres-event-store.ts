import type { EventMetadata, StoredEventView } from '@cairn/domain';
import pg from 'pg';
import {
  comparePositions,
  IdempotencyConflictError,
  WrongExpectedVersionError,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type GlobalPosition,
  type LogPage,
  type NewEvent,
  type ReadAfterAppend,
  type RecordedEvent,
  type StreamBatch,
  type StreamRead,
} from './event-store.ts';
import { statementName } from '../db/statement-name.ts';
import { queryCommittedInOneRoundTrip } from './pipelined-statements.ts';
import { noteCommitWal } from '../consistency/commit-wal.ts';
import { parseLsn } from '../db/wal-position.ts';
import { isoFromTimestamptzText } from './recorded-time.ts';
import { lockStatement, orderedLocks, streamLock, type AdvisoryLock, type InlineProjections, type InlineStatement } from './inline-projections.ts';

type Upcast = <E extends StoredEventView>(event: E) => E;

/** cairn_append_checked's error when the stream is not at the expected version (migration 0020). */
const versionConflictCode = 'CA409';

export type EventRow = {
  position: string;
  xid: string;
  event_id: string;
  stream_id: string;
  stream_version: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: EventMetadata;
  /** As PostgreSQL writes a timestamptz as text. */
  recorded_text: string;
};

// The transaction id leaves as text under a name of its own: an output column named
// `transaction_id` would shadow the xid8 column in `order by`, sorting it as text
// ('1000' before '999') and losing events at every power of ten. The time leaves as text
// too, rewritten without a Date (isoFromTimestamptzText): parsing a Date per event only to
// print it again was a tenth of a replay's time in Node, and `to_char` in SQL cost more.
const eventColumns =
  'events.position, events.transaction_id::text as xid, events.event_id, events.stream_id, events.stream_version, events.type, events.schema_version, events.data, events.metadata, events.recorded_at::text as recorded_text';

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

/**
 * One statement appends a batch: the stream's version is its last event's (read under the
 * stream's lock, so no other append of the stream is in flight), the expected version is
 * checked in the same statement, and no row matches when it does not hold.
 */
const appendSql = `with head as (
    select coalesce(max(events.stream_version), 0) as version from events where events.stream_id = $1
  )
  insert into events (event_id, stream_id, stream_version, type, schema_version, data, metadata)
  select e.id, $1, head.version + e.ord, e.type, e.schema_version, e.data, e.metadata
  from head, unnest($2::uuid[], $3::text[], $4::int[], $5::jsonb[], $6::jsonb[]) with ordinality as e(id, type, schema_version, data, metadata, ord)
  where $7::bigint is null or head.version = $7::bigint
  order by e.ord
  returning events.position::text as position, events.transaction_id::text as xid, events.stream_version::text as stream_version, events.recorded_at`;

/** The largest minor part of a position: `(xid, maxMinor)` is "every event of transaction xid". */
const maxMinor = (1n << 63n) - 1n;

/**
 * The log after a position (of some types), and the horizon: events of transactions below
 * it are all visible, so a follower that saw fewer than it asked for has scanned to there.
 */
const readLogSql = `select h.horizon::text as horizon, e.* from (select pg_snapshot_xmin(pg_current_snapshot()) as horizon) h
  left join lateral (
    select ${eventColumns} from events
    where (events.transaction_id, events.position) > ($1::text::xid8, $2::bigint)
      and events.transaction_id < h.horizon
      and ($4::text[] is null or events.type = any($4::text[]))
    order by events.transaction_id, events.position
    limit $3
  ) e on true`;

/** A batch as the parallel arrays both append statements take: ids, types, schema versions, data, metadata. */
const eventArrays = (events: readonly NewEvent[]) => [
  events.map((e) => e.id),
  events.map((e) => e.type),
  events.map((e) => e.schemaVersion),
  events.map((e) => JSON.stringify(e.data)),
  events.map((e) => JSON.stringify(e.metadata)),
];

type AppendedRow = { position: string; xid: string; stream_version: string; recorded_at: Date };

/**
 * Read once the append has committed: the WAL insert position is then past the commit
 * record, so a standby whose replay has reached it sees the write (docs/consistency.md,
 * "Standbys"). The insert position, not the write or flush one, holds also under
 * `synchronous_commit = off`.
 */
const commitWalSql = 'select pg_current_wal_insert_lsn()::text as lsn';
const commitWal: ReadAfterAppend = { name: 'cairn_commit_wal', text: commitWalSql, values: [] };
const walOf = (rows: readonly pg.QueryResultRow[] | undefined) => parseLsn(String(rows?.[0]?.['lsn'] ?? ''));

export type PostgresEventStoreOptions = {
  /** Read models applied in each append's transaction. */
  readonly inline?: InlineProjections | undefined;
  /**
   * Whether other processes need to hear of appends (`NOTIFY cairn_events`): only when a
   * projector follows the log for some async projection. Default true.
   */
  readonly announce?: boolean;
};

function recordedFrom(row: EventRow, upcast: Upcast): RecordedEvent {
  return upcast({
      id: row.event_id,
      type: row.type,
      schemaVersion: row.schema_version,
      data: row.data,
      metadata: row.metadata,
      streamId: row.stream_id,
      streamVersion: Number(row.stream_version),
      position: { major: BigInt(row.xid), minor: BigInt(row.position) },
    recordedAt: isoFromTimestamptzText(row.recorded_text),
  });
}

/**
 * Every committed event of these types after `after`, visible to followers yet or not. Only
 * for a caller holding what keeps writers of these types out (a rebuild's swap of an inline
 * projection holds its lock), and on that caller's own connection: the writers it waits for
 * hold pool connections too.
 */
export async function readCommittedEvents(
  query: (text: string, params: readonly unknown[]) => Promise<readonly EventRow[]>,
  upcast: Upcast,
  after: GlobalPosition,
  limit: number,
  types: readonly string[],
): Promise<RecordedEvent[]> {
  const rows = await query(
    `select ${eventColumns} from events
     where (events.transaction_id, events.position) > ($1::text::xid8, $2::bigint) and events.type = any($4::text[])
     order by events.transaction_id, events.position limit $3`,
    [after.major.toString(), after.minor.toString(), limit, [...types]],
  );
  return rows.map((row) => recordedFrom(row, upcast));
}

export function createPostgresEventStore(pool: pg.Pool, upcast: Upcast, connectionString: string, options: PostgresEventStoreOptions = {}): EventStore {
  const toRecorded = (row: EventRow): RecordedEvent => recordedFrom(row, upcast);

  const appended = createAppendSignal(pool, options.announce ?? true);

  async function findStored(streamId: string, events: readonly NewEvent[]): Promise<AppendResult | null> {
    const { rows } = await pool.query<{ stream_id: string; stream_version: string; xid: string; position: string }>(
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

  /**
   * One round trip when the inline read models can be planned ahead (appendInOneRoundTrip);
   * otherwise the explicit transaction of appendAtomically (`begin` with the locks, the
   * insert, the read models' steps, `commit`). Either way the stream's lock comes before
   * the transaction has an id, so transaction ids, and the global log, follow the stream's order.
   */
  async function appendOnce(streamId: string, events: readonly NewEvent[], expected: ExpectedVersion, readAfter: ReadAfterAppend | undefined): Promise<AppendResult> {
    const inline = options.inline;
    const locks = [streamLock(streamId), ...(inline ? inline.locksFor(events.map((e) => e.type)) : [])];
    const expectedVersion = expected === 'any' ? null : expected === 'none' ? 0 : expected;
    const plan = inline ? inline.plan(events.map((e) => ({ ...e, streamId }))) : [];
    if (plan) return appendInOneRoundTrip(streamId, events, expected, expectedVersion, locks, plan, readAfter);
    const [result] = await appendAtomically([{ streamId, events, expectedVersion: expected }]);
    if (!result) throw new Error(`append to ${streamId} returned nothing`);
    return result;
  }

  /**
   * The usual append, one round trip: `cairn_append_checked` (migration 0020) takes the
   * locks, checks the version (a conflict is an error) and inserts; the inline read models'
   * statements follow it as prepared statements, then the read the caller asked for, all
   * pipelined in one transaction. Round trips and planning, not the writes, bound a write on
   * small machines.
   */
  async function appendInOneRoundTrip(
    streamId: string,
    events: readonly NewEvent[],
    expected: ExpectedVersion,
    expectedVersion: number | null,
    locks: readonly AdvisoryLock[],
    plan: readonly InlineStatement[],
    readAfter: ReadAfterAppend | undefined,
  ): Promise<AppendResult> {
    const ordered = orderedLocks(locks);
    const append = {
      name: 'cairn_append_checked',
      text: 'select o_position::text, o_xid, o_stream_version::text, o_recorded_at from cairn_append_checked($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
      values: [streamId, ordered.map((l) => l.key[0]), ordered.map((l) => l.key[1]), ordered.map((l) => l.shared), ...eventArrays(events), expectedVersion],
    };
    const readModels = plan.map((p) => ({ name: statementName(p.text), text: p.text, values: [p.rows] }));
    const statements = [append, ...readModels, ...(readAfter ? [readAfter] : [])];
    type Appended = { o_position: string; o_xid: string; o_stream_version: string; o_recorded_at: Date };
    let results: pg.QueryResultRow[][];
    let walLsn: bigint | null;
    try {
      const committed = await queryCommittedInOneRoundTrip(pool, statements, commitWal);
      results = committed.results;
      walLsn = walOf(committed.afterCommit);
    } catch (error) {
      if (error instanceof pg.DatabaseError && error.code === versionConflictCode) throw new WrongExpectedVersionError(streamId, expected);
      throw error;
    }
    const rows = (results[0] ?? []) as Appended[];
    if (rows.length !== events.length) throw new WrongExpectedVersionError(streamId, expected);
    let last = rows[0];
    for (const row of rows) if (last && Number(row.o_stream_version) > Number(last.o_stream_version)) last = row;
    if (!last) throw new WrongExpectedVersionError(streamId, expected);
    appended.signal();
    const readRows = readAfter ? results[statements.length - 1] : undefined;
    const position = noteCommitWal({ major: BigInt(last.o_xid), minor: BigInt(last.o_position) }, walLsn);
    return { nextExpectedVersion: Number(last.o_stream_version), position, ...(readRows ? { readAfter: readRows } : {}) };
  }

  /** Every batch in one transaction: the stream locks first (in key order), then each insert, then the read models. */
  async function appendAtomically(batches: readonly StreamBatch[]): Promise<AppendResult[]> {
    const inline = options.inline;
    const types = batches.flatMap((b) => b.events.map((e) => e.type));
    const locks = [...batches.map((b) => streamLock(b.streamId)), ...(inline ? inline.locksFor(types) : [])];
    const client = await pool.connect();
    try {
      await client.query(`begin; ${lockStatement(locks)}`);
      const recorded: RecordedEvent[] = [];
      const results: AppendResult[] = [];
      for (const { streamId, events, expectedVersion: expected } of batches) {
        const expectedVersion = expected === 'any' ? null : expected === 'none' ? 0 : expected;
        const { rows } = await client.query<AppendedRow>(appendSql, [streamId, ...eventArrays(events), expectedVersion]);
        if (rows.length !== events.length) throw new WrongExpectedVersionError(streamId, expected);
        rows.sort((a, b) => Number(a.stream_version) - Number(b.stream_version));
        events.forEach((event, i) => {
          const row = rows[i] as AppendedRow;
          recorded.push({ ...event, streamId, streamVersion: Number(row.stream_version), position: { major: BigInt(row.xid), minor: BigInt(row.position) }, recordedAt: row.recorded_at.toISOString() });
        });
        const last = recorded[recorded.length - 1] as RecordedEvent;
        results.push({ nextExpectedVersion: last.streamVersion, position: last.position });
      }
      if (inline) await inline.apply(client, recorded);
      const [, wal] = (await client.query(`commit; ${commitWalSql}`)) as unknown as pg.QueryResult[];
      appended.signal();
      const walLsn = walOf(wal?.rows);
      return results.map((r) => ({ ...r, position: noteCommitWal(r.position, walLsn) }));
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      if (error instanceof pg.DatabaseError && error.constraint === 'events_stream_version_key') throw new WrongExpectedVersionError(batches[0]?.streamId ?? '', 'any');
      throw error;
    } finally {
      client.release();
    }
  }

  return {
    kind: 'postgres',

    async appendToStreams(batches) {
      if (batches.length === 0 || batches.some((b) => b.events.length === 0)) throw new Error('nothing to append');
      if (new Set(batches.map((b) => b.streamId)).size !== batches.length) throw new Error('each stream once per atomic append');
      return appendAtomically(batches);
    },

    async appendToStream(streamId, events, { expectedVersion, readAfter }) {
      if (events.length === 0) throw new Error('nothing to append');
      try {
        return await appendOnce(streamId, events, expectedVersion, readAfter);
      } catch (error) {
        // The same event ids were stored by an earlier attempt (met on the event id, or on
        // the stream version that attempt moved): answer as it did.
        const raced = (error instanceof pg.DatabaseError && error.constraint === 'events_event_id_key') || error instanceof WrongExpectedVersionError;
        if (raced) {
          const stored = await findStored(streamId, events);
          if (stored) return stored;
        }
        // Only a writer that does not take the stream's lock can meet another on the version.
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

    async readLog(after, limit, types): Promise<LogPage> {
      const { rows } = await pool.query<EventRow & { horizon: string; event_id: string | null }>(readLogSql, [
        after.major.toString(),
        after.minor.toString(),
        limit,
        types ? [...types] : null,
      ]);
      const events = rows.filter((r) => r.event_id !== null).map(toRecorded);
      const last = events.at(-1);
      if (events.length === limit && last) return { events, through: last.position, full: true };
      // Every transaction below the horizon has ended: the scan covered all their events.
      const horizon: GlobalPosition = { major: BigInt(rows[0]?.horizon ?? '1') - 1n, minor: maxMinor };
      return { events, through: comparePositions(horizon, after) > 0 ? horizon : after, full: false };
    },

    async headPosition() {
      const { rows } = await pool.query<{ xid: string; position: string }>(headPositionSql);
      const row = rows[0];
      return row ? { major: BigInt(row.xid), minor: BigInt(row.position) } : { major: 0n, minor: 0n };
    },

    async isBeyondLog(position) {
      // A scan's `through` is below the oldest running transaction, an event's below the next
      // transaction id: a major part at or past that next id was handed out by no one.
      const { rows } = await pool.query<{ beyond: boolean }>('select $1::numeric >= pg_snapshot_xmax(pg_current_snapshot())::text::numeric as beyond', [position.major.toString()]);
      return rows[0]?.beyond ?? false;
    },

    async watch(onAppend) {
      const stopLocal = appended.subscribe(onAppend);
      const stopListening = await listen(connectionString, appendChannel, onAppend);
      return async () => {
        stopLocal();
        await stopListening();
      };
    },

    async close() {
      await appended.close();
    },
  };
}

/**
 * Tells followers that something was appended, after the commit and outside it: followers
 * in this process at once, the others by one NOTIFY for all the appends of a few
 * milliseconds. A NOTIFY inside each append would serialize every commit on the server's
 * notification queue lock.
 */
function createAppendSignal(pool: pg.Pool, announce: boolean, coalesceMs = 5) {
  const local = new Set<() => void>();
  let sending: Promise<void> | null = null;
  let again = false;
  let closed = false;

  const send = (): void => {
    if (closed || !announce) return;
    if (sending) {
      again = true;
      return;
    }
    sending = pool
      .query('select pg_notify($1, $2)', [appendChannel, ''])
      .then(() => undefined, () => undefined)
      .then(() => new Promise<void>((resolve) => setTimeout(resolve, coalesceMs).unref()))
      .finally(() => {
        sending = null;
        if (again) {
          again = false;
          send();
        }
      });
  };

  return {
    signal(): void {
      for (const listener of local) listener();
      send();
    },
    subscribe(listener: () => void): () => void {
      local.add(listener);
      return () => local.delete(listener);
    },
    async close(): Promise<void> {
      closed = true;
      await sending;
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

/** One actor's events after `after`, in log order (the audit by actor: migration 0016's index serves it). */
export async function readActorEvents(pool: pg.Pool, upcast: Upcast, actorId: string, after: GlobalPosition, limit: number): Promise<RecordedEvent[]> {
  const { rows } = await pool.query<EventRow>(
    `select ${eventColumns} from events
     where events.metadata->>'actorId' = $1 and (events.transaction_id, events.position) > ($2::text::xid8, $3::bigint)
       and events.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
     order by events.transaction_id, events.position limit $4`,
    [actorId, after.major.toString(), after.minor.toString(), limit],
  );
  return rows.map((row) => recordedFrom(row, upcast));
}
