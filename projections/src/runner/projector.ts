import { comparePositions, progressChannel, type EventStore, type GlobalPosition, type Logger, type RecordedEvent } from '@cairn/platform';
import { sql } from 'kysely';
import pg from 'pg';
import type { ReadDb } from '../schema.ts';
import { ensureCheckpoint, lockCheckpoint } from './checkpoints.ts';
import { rebuildBlueGreen } from './rebuild.ts';
import type { Projection } from './projection.ts';

export type ProjectorOptions = {
  readonly db: ReadDb;
  readonly eventStore: EventStore;
  readonly projections: readonly Projection[];
  readonly logger: Logger;
  /** For the advisory locks that elect one active runner per projection. */
  readonly databaseUrl: string;
  readonly batchSize?: number;
  /** Safety poll, for what no notification announces (a lock freed, a status reset). */
  readonly pollIntervalMs?: number;
};

export type BatchOutcome = 'more' | 'idle' | 'stopped';

export class ProjectionFailedError extends Error {
  override name = 'ProjectionFailedError';
}

/**
 * Applies one batch: reads events after the checkpoint, then, in one transaction, locks
 * the checkpoint row, checks that nobody moved it meanwhile, applies and moves it.
 * An event that cannot be applied stops the projection (status `failed`) loudly.
 */
export async function runBatch(options: Pick<ProjectorOptions, 'db' | 'eventStore' | 'logger'>, projection: Projection, batchSize: number): Promise<BatchOutcome> {
  const { db, eventStore, logger } = options;
  const handles = new Set(projection.handles);
  const start = await db.selectFrom('projection_checkpoints').select(['major', 'minor', 'status']).where('name', '=', projection.name).executeTakeFirst();
  if (!start || start.status !== 'running') return 'stopped';
  const from: GlobalPosition = { major: BigInt(start.major), minor: BigInt(start.minor) };
  // Read before taking the row lock: an open transaction of ours would hold the
  // snapshot horizon back and hide the very events we are looking for.
  const events = await eventStore.readAll(from, batchSize);
  if (events.length === 0) return 'idle';

  let current: RecordedEvent | null = null;
  try {
    const moved = await db.transaction().execute(async (trx) => {
      const checkpoint = await lockCheckpoint(trx, projection.name);
      if (checkpoint.status !== 'running' || comparePositions(checkpoint.position, from) !== 0) return true;
      let applied = 0;
      for (const event of events) {
        if (!handles.has(event.type)) continue;
        current = event;
        await projection.apply(trx, event);
        applied += 1;
      }
      current = null;
      const last = events[events.length - 1] ?? events[0];
      if (!last) return false;
      await trx
        .updateTable('projection_checkpoints')
        .set({
          major: last.position.major.toString(),
          minor: last.position.minor.toString(),
          events_applied: sql<string>`events_applied + ${applied}`,
          updated_at: new Date(),
        })
        .where('name', '=', projection.name)
        .execute();
      await sql`select pg_notify(${progressChannel}, ${projection.name})`.execute(trx);
      return false;
    });
    if (moved) return 'more';
  } catch (error) {
    const failed = current as RecordedEvent | null;
    // The database, not the event, failed: the batch rolled back and is tried again later.
    if (!failed || isTransient(error)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    logger.error('projection stopped: an event could not be applied', { projection: projection.name, eventId: failed.id, eventType: failed.type, error: message });
    await db
      .updateTable('projection_checkpoints')
      .set({ status: 'failed', error: `${failed.type} ${failed.id}: ${message}`, failed_event_id: failed.id, updated_at: new Date() })
      .where('name', '=', projection.name)
      .execute();
    await sql`select pg_notify(${progressChannel}, ${projection.name})`.execute(db);
    return 'stopped';
  }
  return events.length === batchSize ? 'more' : 'idle';
}

const transientCodes = new Set(['40001', '40P01', '55P03', '57014', '57P01', '57P02', '57P03', '53300', '53400']);

/** Errors of the connection or of concurrency, which say nothing about the event. */
export function isTransient(error: unknown): boolean {
  if (error instanceof pg.DatabaseError) return error.code !== undefined && (error.code.startsWith('08') || transientCodes.has(error.code));
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|ECONNRESET|ECONNREFUSED|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(message);
}

/** Runs batches until the projection has nothing more to apply (or stopped). */
export async function catchUp(options: Pick<ProjectorOptions, 'db' | 'eventStore' | 'logger'>, projection: Projection, batchSize = 500): Promise<BatchOutcome> {
  await ensureCheckpoint(options.db, projection);
  for (;;) {
    const outcome = await runBatch(options, projection, batchSize);
    if (outcome !== 'more') return outcome;
  }
}

export type Projector = { stop(): Promise<void>; readonly active: () => readonly string[] };

const lockKey = (name: string) => `cairn:projection:${name}`;

/**
 * Follows the log for every projection. Each projection is run by at most one process at
 * a time (a session advisory lock); the others stand by and take over when it is freed.
 * Wakes on NOTIFY from appends; after a wake that found nothing (an older transaction
 * still holds the snapshot horizon back) it looks again shortly, with back-off.
 */
export async function startProjector(options: ProjectorOptions): Promise<Projector> {
  const batchSize = options.batchSize ?? 500;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const { db, logger } = options;

  for (const projection of options.projections) await ensureCheckpoint(db, projection);

  // A projection whose code changed version is rebuilt by the one process that holds it.
  const versionChecked = new Set<string>();
  const ensureVersion = async (projection: Projection) => {
    if (versionChecked.has(projection.name)) return;
    const stored = await db.selectFrom('projection_checkpoints').select('version').where('name', '=', projection.name).executeTakeFirstOrThrow();
    if (stored.version !== projection.version) {
      logger.info('projection version changed: rebuilding', { projection: projection.name, from: stored.version, to: projection.version });
      await rebuildBlueGreen({ db, eventStore: options.eventStore, logger }, projection);
    }
    versionChecked.add(projection.name);
  };

  // Session advisory locks live as long as this connection; if it drops, every lock is
  // gone and a new connection competes for them again.
  let lockClient: pg.Client | null = null;
  const held = new Set<string>();
  const connectLocks = async (): Promise<pg.Client> => {
    const client = new pg.Client({ connectionString: options.databaseUrl, application_name: 'cairn-projector-locks' });
    client.on('error', () => {
      if (lockClient === client) lockClient = null;
      held.clear();
      client.end().catch(() => undefined);
    });
    await client.connect();
    return client;
  };
  lockClient = await connectLocks();
  let stopped = false;
  const running = new Map<string, Promise<void>>();
  const pending = new Set<string>();
  const retryDelays = new Map<string, number>();
  const retryTimers = new Map<string, NodeJS.Timeout>();

  const tryLocks = async () => {
    if (stopped) return;
    if (!lockClient) lockClient = await connectLocks().catch(() => null);
    const client = lockClient;
    if (!client) return;
    for (const projection of options.projections) {
      if (held.has(projection.name) || stopped) continue;
      try {
        const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtext($1)) as locked', [lockKey(projection.name)]);
        if (rows[0]?.locked) held.add(projection.name);
      } catch {
        return;
      }
    }
  };

  const drive = (projection: Projection) => {
    if (stopped || !held.has(projection.name)) return;
    if (running.has(projection.name)) {
      pending.add(projection.name);
      return;
    }
    const work = (async () => {
      await ensureVersion(projection);
      let outcome: BatchOutcome;
      do {
        pending.delete(projection.name);
        do {
          outcome = await runBatch(options, projection, batchSize);
        } while (outcome === 'more' && !stopped);
      } while (pending.has(projection.name) && !stopped);
      if (outcome !== 'stopped') scheduleRetry(projection);
    })()
      .catch((error: unknown) => logger.error('projector batch failed; will retry', { projection: projection.name, error: error instanceof Error ? error.message : String(error) }))
      .finally(() => running.delete(projection.name));
    running.set(projection.name, work);
  };

  // After a wake, look again at growing intervals (10 ms up to 640 ms): an event announced
  // by NOTIFY stays invisible while an older transaction anywhere is still open.
  const scheduleRetry = (projection: Projection) => {
    const delay = retryDelays.get(projection.name);
    if (delay === undefined || delay > 640 || retryTimers.has(projection.name)) return;
    retryDelays.set(projection.name, delay * 2);
    const timer = setTimeout(() => {
      retryTimers.delete(projection.name);
      drive(projection);
    }, delay);
    retryTimers.set(projection.name, timer);
  };

  const wakeAll = () => {
    for (const projection of options.projections) {
      retryDelays.set(projection.name, 10);
      drive(projection);
    }
  };

  await tryLocks();
  const unwatch = await options.eventStore.watch(wakeAll);
  // The safety poll asks two cheap questions (where is the log's head, where is each
  // checkpoint) and drives only the projections that are behind or newly held.
  const drivenOnce = new Set<string>();
  const poll = setInterval(() => {
    void (async () => {
      await tryLocks();
      const head = await options.eventStore.headPosition();
      const rows = await db.selectFrom('projection_checkpoints').select(['name', 'major', 'minor', 'status']).execute();
      for (const projection of options.projections) {
        const row = rows.find((r) => r.name === projection.name);
        const behind = !row || (row.status === 'running' && comparePositions({ major: BigInt(row.major), minor: BigInt(row.minor) }, head) < 0);
        if (behind || !drivenOnce.has(projection.name)) {
          if (held.has(projection.name)) drivenOnce.add(projection.name);
          drive(projection);
        }
      }
    })().catch(() => undefined);
  }, pollIntervalMs);
  wakeAll();

  return {
    active: () => [...held],
    async stop() {
      stopped = true;
      clearInterval(poll);
      for (const timer of retryTimers.values()) clearTimeout(timer);
      await unwatch();
      await Promise.allSettled(running.values());
      await lockClient?.end().catch(() => undefined);
    },
  };
}

/**
 * Runs batches until the projection has applied the log up to `target` (a write of the
 * caller's own). An event can stay invisible for a moment while an older transaction
 * anywhere is still open, so an empty batch waits briefly and looks again.
 */
export async function catchUpTo(
  options: Pick<ProjectorOptions, 'db' | 'eventStore' | 'logger'>,
  projection: Projection,
  target: GlobalPosition,
  timeoutMs = 30_000,
): Promise<BatchOutcome> {
  await ensureCheckpoint(options.db, projection);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const outcome = await runBatch(options, projection, 500);
    if (outcome === 'stopped') return outcome;
    const row = await options.db.selectFrom('projection_checkpoints').select(['major', 'minor']).where('name', '=', projection.name).executeTakeFirstOrThrow();
    if (comparePositions({ major: BigInt(row.major), minor: BigInt(row.minor) }, target) >= 0) return 'idle';
    if (outcome === 'idle') {
      if (Date.now() > deadline) throw new Error(`projection ${projection.name} did not reach the write within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}
