import { comparePositions, progressChannel, startOfLog, type EventStore, type GlobalPosition, type Logger, type RecordedEvent } from '@cairn/platform';
import { sql } from 'kysely';
import type { ReadDb, ReadTrx } from '../schema.ts';
import { ensureCheckpoint, lockCheckpoint } from './checkpoints.ts';
import type { Projection } from './projection.ts';

type Options = { readonly db: ReadDb; readonly eventStore: EventStore; readonly logger: Logger; readonly batchSize?: number };

export class RebuildFailedError extends Error {
  override name = 'RebuildFailedError';
}

const shadowSchemaOf = (projection: Projection) => `rebuild_${projection.name.replace(/[^a-z0-9]/gi, '_').toLowerCase()}`;

/**
 * Blue-green: the projection is replayed from the start of the log into copies of its
 * tables in a schema of their own (its `apply` writes unqualified table names, which the
 * search path sends there), while the live tables go on serving reads and following the
 * log. Then one transaction, holding the checkpoint row, applies the last events to the
 * copies and replaces the live rows with them. Readers never see an empty or half-built
 * read model; an event the projection cannot apply leaves the live one untouched.
 */
export async function rebuildBlueGreen(options: Options, projection: Projection): Promise<{ events: number }> {
  const { db, eventStore } = options;
  const batchSize = options.batchSize ?? 500;
  const shadow = shadowSchemaOf(projection);
  const handles = new Set(projection.handles);
  await ensureCheckpoint(db, projection);

  await sql`drop schema if exists ${sql.id(shadow)} cascade`.execute(db);
  await sql`create schema ${sql.id(shadow)}`.execute(db);
  try {
    for (const table of projection.tables) {
      await sql`create table ${sql.table(`${shadow}.${table}`)} (like ${sql.table(`public.${table}`)} including all)`.execute(db);
    }

    let position: GlobalPosition = startOfLog;
    let applied = 0;
    const applyInto = async (trx: ReadTrx, events: readonly RecordedEvent[]) => {
      await sql`set local search_path to ${sql.id(shadow)}, public`.execute(trx);
      for (const event of events) {
        if (!handles.has(event.type)) continue;
        try {
          await projection.apply(trx, event);
        } catch (error) {
          throw new RebuildFailedError(`${projection.name} cannot apply ${event.type} ${event.id}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        }
        applied += 1;
      }
      const last = events.at(-1);
      if (last) position = last.position;
    };

    // Replay until the copies are near the head, outside any lock.
    for (;;) {
      const events = await eventStore.readAll(position, batchSize);
      if (events.length === 0) break;
      await db.transaction().execute((trx) => applyInto(trx, events));
      if (events.length < batchSize) break;
    }

    await db.transaction().execute(async (trx) => {
      const live = await lockCheckpoint(trx, projection.name);
      // Bring the copies at least as far as the live tables, then past whatever else is visible now.
      for (;;) {
        const events = await eventStore.readAll(position, batchSize);
        if (events.length === 0 && comparePositions(position, live.position) >= 0) break;
        if (events.length === 0) throw new RebuildFailedError(`${projection.name}: the log is behind the live checkpoint; try again`);
        await applyInto(trx, events);
      }
      await sql`set local search_path to public`.execute(trx);
      for (const table of projection.tables) {
        await sql`delete from ${sql.table(`public.${table}`)}`.execute(trx);
        await sql`insert into ${sql.table(`public.${table}`)} select * from ${sql.table(`${shadow}.${table}`)}`.execute(trx);
      }
      await trx
        .updateTable('projection_checkpoints')
        .set({
          version: projection.version,
          major: position.major.toString(),
          minor: position.minor.toString(),
          status: 'running',
          error: null,
          failed_event_id: null,
          events_applied: applied,
          updated_at: new Date(),
        })
        .where('name', '=', projection.name)
        .execute();
      await sql`select pg_notify(${progressChannel}, ${projection.name})`.execute(trx);
    });
    options.logger.info('projection rebuilt', { projection: projection.name, events: applied });
    return { events: applied };
  } finally {
    await sql`drop schema if exists ${sql.id(shadow)} cascade`.execute(db);
  }
}
