import { progressChannel, type GlobalPosition } from '@cairn/platform';
import { sql } from 'kysely';
import type { ReadDb, ReadTrx } from '../schema.ts';
import type { Projection } from './projection.ts';

export type Checkpoint = {
  readonly position: GlobalPosition;
  readonly status: 'running' | 'failed' | 'rebuilding' | 'inline';
  readonly version: number;
};

export async function ensureCheckpoint(db: ReadDb, projection: Projection): Promise<void> {
  await db
    .insertInto('projection_checkpoints')
    .values({ name: projection.name, version: projection.version, major: '0', minor: '0', status: 'running', events_applied: 0 })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

/** Locks the checkpoint row: batches of one projection run one after another, whoever runs them. */
export async function lockCheckpoint(trx: ReadTrx, name: string): Promise<Checkpoint> {
  const row = await trx
    .selectFrom('projection_checkpoints')
    .select(['major', 'minor', 'status', 'version'])
    .where('name', '=', name)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return { position: { major: BigInt(row.major), minor: BigInt(row.minor) }, status: row.status, version: row.version };
}

/**
 * Empties the projection's tables and rewinds it to the start of the log, in one
 * transaction with the checkpoint, so a running projector simply replays from there.
 */
export async function resetProjection(db: ReadDb, projection: Projection): Promise<void> {
  await ensureCheckpoint(db, projection);
  await db.transaction().execute(async (trx) => {
    await lockCheckpoint(trx, projection.name);
    if (projection.tables.length > 0) await sql`truncate table ${sql.join(projection.tables.map((t) => sql.table(t)))}`.execute(trx);
    await trx
      .updateTable('projection_checkpoints')
      .set({ version: projection.version, major: '0', minor: '0', status: 'running', error: null, failed_event_id: null, events_applied: 0, updated_at: new Date() })
      .where('name', '=', projection.name)
      .execute();
    // Waiters forget what they knew of it (a bare name makes them read the checkpoints).
    await sql`select pg_notify(${progressChannel}, ${projection.name})`.execute(trx);
  });
}
