import { comparePositions, progressChannel, projectionLockKey, queryInOneRoundTrip, readCommittedEvents, startOfLog, statementName, upcastEvent, type EventStore, type GlobalPosition, type LogPage, type Logger, type RecordedEvent } from '@cairn/platform';
import { sql } from 'kysely';
import { poolOf, type ReadDb, type ReadTrx } from '../schema.ts';
import { applyPlanned, planBatch, type PlannedBatch } from './apply-events.ts';
import { ensureCheckpoint, lockCheckpoint } from './checkpoints.ts';
import type { Projection } from './projection.ts';
import { trxQuery, trxRunner } from './sql-runner.ts';
import { isTransient } from './transient-errors.ts';
import { buildIndexes } from './copy-indexes.ts';
import { currentMigrations, savedReplay, saveReplay, type SavedReplay } from './saved-replay.ts';

export type RebuildOptions = {
  readonly db: ReadDb;
  readonly eventStore: EventStore;
  readonly logger: Logger;
  readonly batchSize?: number;
  /** The live read model is applied in the appends' transactions (PostgreSQL). */
  readonly inline?: boolean;
  /** Called after each replayed batch, with the events replayed so far. */
  readonly onProgress?: (replayed: number) => void;
  /**
   * Aborted: the replay stops after its current batch, keeps its copy and where it stood,
   * and throws RebuildInterruptedError; the next rebuild of the same version resumes there.
   */
  readonly signal?: AbortSignal;
  /**
   * Only while the projection has applied nothing (a catch-up from the start of the log):
   * checked once the rebuild lock is held, since another runner may have caught it up
   * meanwhile, and again under the checkpoint's lock before the swap.
   */
  readonly onlyFromStart?: boolean;
};

/**
 * The swap needs every live table alone. Taken one by one, a reader joining two of them
 * could hold the second while waiting for the first: a deadlock. So all are asked for in
 * one statement with a short lock timeout, and on a timeout given back and asked for again:
 * readers wait a few milliseconds at most, and never in a cycle.
 */
async function lockLiveTables(trx: ReadTrx, tables: readonly string[]): Promise<void> {
  if (tables.length === 0) return;
  const list = sql.join(tables.map((t) => sql.table(`public.${t}`)));
  for (let attempt = 1; ; attempt += 1) {
    await sql`savepoint swap_locks`.execute(trx);
    try {
      await sql`set local lock_timeout = '100ms'`.execute(trx);
      await sql`lock table ${list} in access exclusive mode`.execute(trx);
      await sql`set local lock_timeout = 0`.execute(trx);
      await sql`release savepoint swap_locks`.execute(trx);
      return;
    } catch (error) {
      await sql`rollback to savepoint swap_locks`.execute(trx);
      const code = (error as { code?: string }).code;
      if ((code !== '55P03' && code !== '40P01') || attempt >= 15) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40));
    }
  }
}

export class RebuildFailedError extends Error {
  override name = 'RebuildFailedError';
}

export class RebuildInterruptedError extends Error {
  override name = 'RebuildInterruptedError';
}

/** `onlyFromStart`: the projection was no longer at the start, or no longer running, so nothing was swapped. */
export class RebuildSupersededError extends Error {
  override name = 'RebuildSupersededError';
}

export const schemaName = (prefix: string, projection: Projection) => `${prefix}_${projection.name.replace(/[^a-z0-9]/gi, '_').toLowerCase()}`;

/**
 * Blue-green: the projection is replayed from the start of the log into copies of its
 * tables in a schema of their own (row operations name tables unqualified, and the search
 * path sends them there), while the live tables go on serving reads and following the
 * log. Then one short transaction, holding off the live writer (the checkpoint row for an
 * async projection, the projection's lock for an inline one), applies the last events to
 * the copies and swaps them in by renaming schemas, never copying rows. Readers never see
 * an empty or half-built read model; an event the projection cannot apply leaves the
 * live one untouched.
 */
export async function rebuildBlueGreen(options: Options, projection: Projection): Promise<{ events: number }> {
  // Two rebuilds of one projection (the command line beside a projector's version rebuild)
  // would share the copy's schema: the second waits for the first, then starts over.
  return options.db.connection().execute(async (connection) => {
    const key = `cairn:rebuild:${projection.name}`;
    await sql`select pg_advisory_lock(hashtext(${key}))`.execute(connection);
    try {
      return await rebuildAlone(options, projection);
    } finally {
      await sql`select pg_advisory_unlock(hashtext(${key}))`.execute(connection);
    }
  });
}

type Options = RebuildOptions;

/** A copy of a projection's tables in a schema of its own, replayed from the log (rebuild and verify). */
export type Shadow = {
  readonly schema: string;
  /** How far the copy has been replayed; `applied` and `replayed` count events. */
  position: GlobalPosition;
  applied: number;
  replayed: number;
  /**
   * Applies events to the copy in the given transaction (its search path points at the
   * copy); `planned`: their statements, worked out already (planBatch).
   */
  applyInto(trx: ReadTrx, events: readonly RecordedEvent[], planned?: PlannedBatch): Promise<void>;
  /** Applies a page of the replay (`events` events, their statements worked out) to the copy in a transaction of its own. */
  applyPage(events: number, planned: PlannedBatch): Promise<void>;
  /** The non-key indexes of the live tables, to build on the copy once it is loaded. */
  readonly deferredIndexes: readonly string[];
  /** The migrations applied when the copy was made (saved-replay.ts, currentMigrations). */
  readonly migrationsSeen: string;
};

const uniqueViolation = '23505';

/** applyInto's settings as one statement, for a page sent in one round trip (the extended protocol's implicit transaction is theirs). */
const shadowSettings = {
  name: 'cairn_rebuild_page_settings',
  text: "select set_config('search_path', $1, true), set_config('enable_seqscan', 'off', true)",
};

/** Creates the copy's tables (with their keys) in `schema` and replays the log into them until near the head, outside any lock. */
export async function replayIntoShadow(
  options: Options,
  projection: Projection,
  schema: string,
  resume: SavedReplay | null = null,
): Promise<Shadow> {
  const { db, eventStore } = options;
  const batchSize = options.batchSize ?? 5000;
  // Read before the copy is made from the live tables: a migration committed after it is one the copy may have missed.
  const migrationsSeen = resume?.migrationsSeen ?? (await currentMigrations(db));
  if (!resume) {
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db);
    await sql`create schema ${sql.id(schema)}`.execute(db);
  }
  // Keys first (upserts need them); the other indexes are built once, after the replay.
  const deferredIndexes: string[] = [];
  for (const table of projection.tables) {
    if (!resume) {
      await sql`create table ${sql.table(`${schema}.${table}`)} (like ${sql.table(`public.${table}`)} including all excluding indexes)`.execute(db);
      // LIKE leaves per-column statistics targets behind (assets.created_at keeps 1,000 slices for the listing's windows, migration 0022).
      const targets = await sql<{ column: string; target: number }>`select attname as column, attstattarget as target from pg_attribute
        where attrelid = ${`public.${table}`}::regclass and attnum > 0 and not attisdropped and attstattarget > 0`.execute(db);
      for (const { column, target } of targets.rows) {
        await sql`alter table ${sql.table(`${schema}.${table}`)} alter column ${sql.id(column)} set statistics ${sql.raw(String(Math.trunc(target)))}`.execute(db);
      }
    }
    const keys = await sql<{ name: string; definition: string }>`select conname as name, pg_get_constraintdef(oid) as definition from pg_constraint
      where conrelid = ${`public.${table}`}::regclass and contype in ('p', 'u') order by conname`.execute(db);
    for (const key of resume ? [] : keys.rows) {
      await sql`alter table ${sql.table(`${schema}.${table}`)} add constraint ${sql.id(key.name)} ${sql.raw(key.definition)}`.execute(db);
    }
    const others = await sql<{ definition: string }>`select pg_get_indexdef(i.indexrelid) as definition from pg_index i
      where i.indrelid = ${`public.${table}`}::regclass and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`.execute(db);
    // `CREATE INDEX name ON public.table USING ...`: the same index, by the same name, on the copy.
    for (const index of others.rows) deferredIndexes.push(index.definition.replace(/ ON (ONLY )?\S+ USING /, ` ON ${schema}.${table} USING `));
  }

  // Errors of the connection stay as they are, for callers to try again (bulk-catch-up.ts).
  const failed = (error: unknown) => {
    if (isTransient(error)) return error;
    const detail = error instanceof Error ? error.message : String(error);
    return new RebuildFailedError(`${projection.name} cannot apply the log: ${detail}`, { cause: error });
  };
  const replayed = (events: number, applied: number) => {
    shadow.applied += applied;
    shadow.replayed += events;
    options.onProgress?.(shadow.replayed);
  };
  const intoCopy = async (trx: ReadTrx, events: number, plan: () => PlannedBatch) => {
    await sql`set local search_path to ${sql.id(schema)}, public`.execute(trx);
    // The copies grow from empty and are never analyzed while they load: PostgreSQL
    // would plan every keyed delete or update as a scan of the whole copy (quadratic
    // over the rebuild). Their key indexes are there from the start; make it use them.
    await sql`set local enable_seqscan = off`.execute(trx);
    let applied: number;
    try {
      applied = await applyPlanned(trxRunner(trx), plan());
    } catch (error) {
      throw failed(error);
    }
    replayed(events, applied);
  };
  const pool = poolOf(db);
  let tryPlainInserts = true;
  const shadow: Shadow = {
    schema,
    position: resume?.position ?? startOfLog,
    applied: resume?.applied ?? 0,
    replayed: resume?.replayed ?? 0,
    deferredIndexes,
    migrationsSeen,
    async applyInto(trx, events, planned) {
      await intoCopy(trx, events.length, () => planned ?? planBatch(projection, events));
    },
    async applyPage(events, planned) {
      if ('error' in planned) throw failed(planned.error);
      if (planned.statements.length === 0) {
        replayed(events, planned.applied);
        return;
      }
      const rows = planned.statements.flatMap((s) => (s.kind === 'statement' ? [s] : []));
      if (!pool || rows.length !== planned.statements.length) {
        await db.transaction().execute((trx) => intoCopy(trx, events, () => planned));
        return;
      }
      // Settings, statements and commit in one round trip: a page's four round trips
      // around its statements were a quarter of a replay's time.
      const send = (plain: boolean) =>
        queryInOneRoundTrip(pool, [
          { name: shadowSettings.name, text: shadowSettings.text, values: [`${schema}, public`] },
          ...rows.map((s) => {
            const text = plain && s.plain ? s.plain : s.text;
            return { name: statementName(text), text, values: [s.rows] };
          }),
        ]);
      try {
        // Inserts first go without ON CONFLICT: most of a log creates each row once. The
        // first page that meets a row already there is sent again as planned (nothing of
        // it was committed), and so is every page after it.
        const plain = tryPlainInserts && rows.some((s) => s.plain !== undefined);
        await send(plain).catch((error: unknown) => {
          if (!plain || (error as { code?: string }).code !== uniqueViolation) throw error;
          tryPlainInserts = false;
          options.logger.info('rebuild page met rows already in the copy; inserts keep ON CONFLICT from here', { projection: projection.name });
          return send(false);
        });
      } catch (error) {
        throw failed(error);
      }
      replayed(events, planned.applied);
    },
  };

  // The next page is read, and its statements worked out, while this one is applied: the
  // database and this process work at the same time. Only its statements are kept: events
  // held across the wait would outlive V8's young generation and cost a full collection.
  const planned = async (reading: Promise<LogPage>) => {
    const { events, through, full } = await reading;
    try {
      return { events: events.length, through, full, plan: planBatch(projection, events) };
    } catch (error) {
      // Not an event's fault (planBatch returns those): a row operation SQL cannot say.
      throw new RebuildFailedError(`${projection.name} cannot apply the log: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  };
  let current = await planned(eventStore.readLog(shadow.position, batchSize, projection.handles));
  for (;;) {
    if (options.signal?.aborted) {
      await saveReplay(db, projection, shadow);
      throw new RebuildInterruptedError(`${projection.name}: interrupted after ${shadow.replayed} events; run the rebuild again to resume`);
    }
    const page = current;
    const next = page.full ? planned(eventStore.readLog(page.through, batchSize, projection.handles)) : null;
    if (page.events > 0) await shadow.applyPage(page.events, page.plan).catch(async (error: unknown) => {
      await next?.catch(() => undefined);
      throw error;
    });
    shadow.position = page.through;
    if (!next) break;
    current = await next;
  }
  return shadow;
}

/**
 * In a transaction that holds the live writer off (the projection's lock for an inline
 * projection, the checkpoint row for an async one), brings the copy to exactly where the
 * live tables are. Until the transaction ends, copy and live tables show the same log.
 */
export async function catchUpShadowLocked(options: Options, projection: Projection, shadow: Shadow, trx: ReadTrx): Promise<void> {
  const { eventStore } = options;
  const batchSize = options.batchSize ?? 5000;
  if (options.inline) {
    // Inline writers hold this lock shared until they commit: once it is ours, every
    // event of these types is committed, and no new one comes until the transaction ends.
    const [k1, k2] = projectionLockKey(projection.name);
    await sql`select pg_advisory_xact_lock(${k1}::int, ${k2}::int)`.execute(trx);
    await lockCheckpoint(trx, projection.name);
    if (eventStore.kind !== 'postgres') throw new RebuildFailedError('an inline projection needs the PostgreSQL event store');
    for (;;) {
      const events = await readCommittedEvents(trxQuery(trx), upcastEvent, shadow.position, batchSize, projection.handles);
      if (events.length === 0) break;
      await shadow.applyInto(trx, events);
      shadow.position = events.at(-1)?.position ?? shadow.position;
    }
    return;
  }
  const live = await lockCheckpoint(trx, projection.name);
  // Bring the copy at least as far as the live tables, then past whatever else is visible now.
  for (;;) {
    const page = await eventStore.readLog(shadow.position, batchSize, projection.handles);
    if (page.events.length > 0) await shadow.applyInto(trx, page.events);
    shadow.position = page.through;
    if (page.full) continue;
    if (comparePositions(shadow.position, live.position) >= 0) break;
    throw new RebuildFailedError(`${projection.name}: the log is behind the live checkpoint; try again`);
  }
}

async function rebuildAlone(options: Options, projection: Projection): Promise<{ events: number }> {
  const { db } = options;
  const shadowSchema = schemaName('rebuild', projection);
  const retired = schemaName('retired', projection);
  await ensureCheckpoint(db, projection);
  if (options.onlyFromStart && !(await stillAtStart(db, projection))) throw new RebuildSupersededError(`${projection.name} is no longer at the start of the log`);

  await sql`drop schema if exists ${sql.id(retired)} cascade`.execute(db);
  await sql`create schema ${sql.id(retired)}`.execute(db);
  let interrupted = false;
  try {
    const started = performance.now();
    const resume = await savedReplay(db, projection, shadowSchema);
    const shadow = await replayIntoShadow(options, projection, shadowSchema, resume).catch((error: unknown) => {
      // The copy stays, for the next rebuild to resume.
      if (error instanceof RebuildInterruptedError) interrupted = true;
      throw error;
    });
    await db.deleteFrom('projection_rebuilds').where('name', '=', projection.name).execute();
    // Checked before the indexes are built, to stop early; the swap checks again under its locks, and that check decides.
    if ((await currentMigrations(db)) !== shadow.migrationsSeen) throw migratedMeanwhile(projection);
    const loaded = performance.now();
    await buildIndexes(db, shadow.deferredIndexes);
    const indexed = performance.now();
    for (const table of projection.tables) {
      const copy = sql.table(`${shadowSchema}.${table}`);
      await (projection.vacuumAfterRebuild?.includes(table) ? sql`vacuum (analyze) ${copy}` : sql`analyze ${copy}`).execute(db);
    }

    const swap = async (trx: ReadTrx) => {
      await catchUpShadowLocked(options, projection, shadow, trx);
      // Another runner may have stopped it on an event meanwhile: its status stands.
      if (options.onlyFromStart && (await lockCheckpoint(trx, projection.name)).status !== 'running') throw new RebuildSupersededError(`${projection.name} stopped while it was caught up`);
      await sql`set local search_path to public`.execute(trx);
      await lockLiveTables(trx, projection.tables);
      // A migration since the copy was made may have changed the live tables or what their
      // rows hold: the copy would put back what it undid. Nothing is swapped, and the next
      // rebuild starts from copies made under it. Read under the live tables' locks, so a
      // migration that changes them afterwards waits for the swap and applies to the copy.
      if ((await currentMigrations(trx)) !== shadow.migrationsSeen) throw migratedMeanwhile(projection);
      for (const table of projection.tables) {
        await sql`alter table ${sql.table(`public.${table}`)} set schema ${sql.id(retired)}`.execute(trx);
        await sql`alter table ${sql.table(`${shadowSchema}.${table}`)} set schema public`.execute(trx);
      }
      await trx
        .updateTable('projection_checkpoints')
        .set({
          version: projection.version,
          major: shadow.position.major.toString(),
          minor: shadow.position.minor.toString(),
          status: options.inline ? 'inline' : 'running',
          error: null,
          failed_event_id: null,
          events_applied: shadow.applied,
          updated_at: new Date(),
        })
        .where('name', '=', projection.name)
        .execute();
      await sql`select pg_notify(${progressChannel}, ${projection.name})`.execute(trx);
    };
    // The swap holds inline writers off: when the tables stay busy it gives everything
    // back, so writers go on, and tries again a little later.
    for (let attempt = 1; ; attempt += 1) {
      const before = { position: shadow.position, applied: shadow.applied, replayed: shadow.replayed };
      try {
        await db.transaction().execute(swap);
        break;
      } catch (error) {
        Object.assign(shadow, before);
        const code = (error as { code?: string }).code;
        if ((code !== '55P03' && code !== '40P01') || attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    }
    const ms = (from: number, to: number) => Math.round(to - from);
    options.logger.info('projection rebuilt', { projection: projection.name, events: shadow.applied, replayMs: ms(started, loaded), indexMs: ms(loaded, indexed), swapMs: ms(indexed, performance.now()) });
    return { events: shadow.applied };
  } finally {
    if (!interrupted) await sql`drop schema if exists ${sql.id(shadowSchema)} cascade`.execute(db);
    await sql`drop schema if exists ${sql.id(retired)} cascade`.execute(db);
  }
}

const migratedMeanwhile = (projection: Projection) => new RebuildFailedError(`${projection.name}: a migration was applied while the rebuild ran; run the rebuild again`);

async function stillAtStart(db: ReadDb, projection: Projection): Promise<boolean> {
  const row = await db.selectFrom('projection_checkpoints').select(['major', 'minor', 'status']).where('name', '=', projection.name).executeTakeFirstOrThrow();
  return row.status === 'running' && comparePositions({ major: BigInt(row.major), minor: BigInt(row.minor) }, startOfLog) === 0;
}
