import { comparePositions, encodePosition, progressChannel, type EventStore, type GlobalPosition, type LogPage, type Logger, type RecordedEvent } from '@cairn/platform';
import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';
import { applyPlanned, EventApplyError, findFailingEvent, planBatch, type PlannedBatch } from './apply-events.ts';
import { ensureCheckpoint, lockCheckpoint } from './checkpoints.ts';
import { catchUpInBulk } from './bulk-catch-up.ts';
import { rebuildBlueGreen } from './rebuild.ts';
import { isTransient } from './transient-errors.ts';
import { holdProjectionLocks } from './projection-locks.ts';
import type { Projection } from './projection.ts';
import { trxRunner } from './sql-runner.ts';

export type RunnerOptions = {
  readonly db: ReadDb;
  readonly eventStore: EventStore;
  readonly logger: Logger;
  /** From the start of the log, this many events or more are caught up the rebuild's way (bulk-catch-up.ts). */
  readonly bulkCatchUpEvents?: number;
  /** Stops a catch-up from the start between two batches; the next one resumes where it stood. */
  readonly signal?: AbortSignal;
};

export type ProjectorOptions = RunnerOptions & {
  /** Run by this projector, in batches, from the log. */
  readonly projections: readonly Projection[];
  /** Applied in the appends' transactions; the projector only rebuilds them when their version changes. */
  readonly inline?: readonly Projection[];
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

/** `name@position`: waiters keep every checkpoint in memory from these, with no query. */
export const progressPayload = (name: string, position: GlobalPosition) => `${name}@${encodePosition(position)}`;

type Start = { readonly projection: Projection; readonly from: GlobalPosition };

/**
 * One batch for several projections: one read of the log (only the event types they
 * handle) from the earliest of their checkpoints, then, per projection, one transaction that
 * locks its checkpoint row, checks that nobody moved it meanwhile, applies its events
 * set-based and moves it to where the read reached. An event that cannot be applied stops
 * that projection (status `failed`) loudly; the others go on.
 */
export async function runBatch(options: RunnerOptions, projections: readonly Projection[], batchSize: number): Promise<BatchOutcome> {
  const { db, eventStore } = options;
  if (projections.length === 0) return 'stopped';
  const rows = await db
    .selectFrom('projection_checkpoints')
    .select(['name', 'major', 'minor', 'status'])
    .where('name', 'in', projections.map((p) => p.name))
    .execute();
  const starts: Start[] = [];
  for (const projection of projections) {
    const row = rows.find((r) => r.name === projection.name);
    if (row?.status === 'running') starts.push({ projection, from: { major: BigInt(row.major), minor: BigInt(row.minor) } });
  }
  for (const start of starts) {
    if (await catchUpInBulk(options, start.projection, start.from, batchSize)) return options.signal?.aborted ? 'stopped' : 'more';
  }
  const first = starts.reduce<GlobalPosition | null>((min, s) => (!min || comparePositions(s.from, min) < 0 ? s.from : min), null);
  if (!first) return 'stopped';
  const types = [...new Set(starts.flatMap((s) => s.projection.handles))];
  // Read before any transaction of ours: an open one would hold the snapshot horizon back
  // and hide the very events we are looking for.
  const page = await eventStore.readLog(first, batchSize, types);
  let moved = false;
  for (const start of starts) {
    if (comparePositions(start.from, page.through) >= 0) continue;
    const events = page.events.filter((e) => comparePositions(e.position, start.from) > 0);
    moved = (await applyBatch(options, start, events, page.through)) || moved;
  }
  if (page.full) return 'more';
  return moved ? 'more' : 'idle';
}

/**
 * Applies one projection's part of a batch; true if another runner had moved its checkpoint.
 * `planned`: its statements, worked out already (planBatch) while the previous batch was applied.
 */
async function applyBatch(options: RunnerOptions, start: Start, events: readonly RecordedEvent[], through: GlobalPosition, planned?: PlannedBatch): Promise<boolean> {
  const { db } = options;
  const { projection, from } = start;
  const handled = events.filter((e) => projection.handles.includes(e.type));
  if (handled.length === 0) {
    // Nothing to apply: move the checkpoint with one guarded statement, no transaction.
    const result = await db
      .updateTable('projection_checkpoints')
      .set({ major: through.major.toString(), minor: through.minor.toString(), updated_at: new Date() })
      .where('name', '=', projection.name)
      .where('status', '=', 'running')
      .where('major', '=', from.major.toString())
      .where('minor', '=', from.minor.toString())
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) return true;
    await notifyProgress(db, projection.name, through);
    return false;
  }
  try {
    return await db.transaction().execute(async (trx) => {
      const checkpoint = await lockCheckpoint(trx, projection.name);
      if (checkpoint.status !== 'running' || comparePositions(checkpoint.position, from) !== 0) return true;
      const applied = await applyPlanned(trxRunner(trx), planned ?? planBatch(projection, handled));
      await trx
        .updateTable('projection_checkpoints')
        .set({ major: through.major.toString(), minor: through.minor.toString(), events_applied: sql<string>`events_applied + ${applied}`, updated_at: new Date() })
        .where('name', '=', projection.name)
        .execute();
      await sql`select pg_notify(${progressChannel}, ${progressPayload(projection.name, through)})`.execute(trx);
      return false;
    });
  } catch (error) {
    // The database, not an event, failed: the batch rolled back and is tried again later.
    if (isTransient(error)) throw error;
    const failure = error instanceof EventApplyError ? error : await db.transaction().execute(async (trx) => {
      const found = await findFailingEvent(trxRunner(trx), projection, handled);
      // Roll the probe back, whatever it did.
      throw new ProbeDone(found);
    }).catch((probe: unknown) => (probe instanceof ProbeDone ? probe.found : null));
    if (!failure) throw error;
    await markFailed(options, projection, failure);
    return false;
  }
}

class ProbeDone extends Error {
  readonly found: EventApplyError | null;
  constructor(found: EventApplyError | null) {
    super('probe done');
    this.found = found;
  }
}

async function markFailed(options: RunnerOptions, projection: Projection, failure: EventApplyError): Promise<void> {
  const message = failure.cause instanceof Error ? failure.cause.message : String(failure.cause);
  options.logger.error('projection stopped: an event could not be applied', { projection: projection.name, eventId: failure.event.id, eventType: failure.event.type, error: message });
  await options.db
    .updateTable('projection_checkpoints')
    .set({ status: 'failed', error: `${failure.event.type} ${failure.event.id}: ${message}`, failed_event_id: failure.event.id, updated_at: new Date() })
    .where('name', '=', projection.name)
    .execute();
  await sql`select pg_notify(${progressChannel}, ${projection.name})`.execute(options.db);
}

async function notifyProgress(db: ReadDb, name: string, position: GlobalPosition): Promise<void> {
  await sql`select pg_notify(${progressChannel}, ${progressPayload(name, position)})`.execute(db);
}

/**
 * A projection that has never run (its checkpoint at the start) and has no event in the log:
 * every event of its types from now on is applied inline, so it needs no rebuild.
 */
async function neverApplied(options: ProjectorOptions, projection: Projection, stored: { status: string; major: string; minor: string }): Promise<boolean> {
  if (stored.status !== 'running' || stored.major !== '0' || stored.minor !== '0') return false;
  if (options.eventStore.kind !== 'postgres') return false;
  const { rows } = await sql<{ found: number }>`select 1 as found from events where type = any(${[...projection.handles]}::text[]) limit 1`.execute(options.db);
  return rows.length === 0;
}

/**
 * Runs batches until the projection has nothing more to apply (or stopped); from the start
 * of a long log, the rebuild's way first (catchUpInBulk). While a batch
 * is applied, the next one is read and its statements worked out; if another runner moved
 * the checkpoint meanwhile, the page read ahead is dropped and the next round starts from
 * the checkpoint.
 */
export async function catchUp(options: RunnerOptions, projection: Projection, batchSize = 5000): Promise<BatchOutcome> {
  await ensureCheckpoint(options.db, projection);
  let bulkTried = false;
  // A page and its statements: worked out in Node while the database applies the page before.
  const planned = async (reading: Promise<LogPage>) => {
    const page = await reading;
    return { page, plan: planBatch(projection, page.events.filter((e) => projection.handles.includes(e.type))) };
  };
  for (;;) {
    const row = await options.db.selectFrom('projection_checkpoints').select(['major', 'minor', 'status']).where('name', '=', projection.name).executeTakeFirstOrThrow();
    if (row.status !== 'running') return 'stopped';
    let from: GlobalPosition = { major: BigInt(row.major), minor: BigInt(row.minor) };
    if (!bulkTried) {
      bulkTried = true;
      if (await catchUpInBulk(options, projection, from, batchSize)) {
        if (options.signal?.aborted) return 'stopped';
        continue;
      }
    }
    let current = await planned(options.eventStore.readLog(from, batchSize, projection.handles));
    for (;;) {
      const { page, plan } = current;
      const next = page.full ? planned(options.eventStore.readLog(page.through, batchSize, projection.handles)) : null;
      const moved = comparePositions(from, page.through) >= 0 ? false : await applyBatch(options, { projection, from }, page.events, page.through, plan).catch(async (error: unknown) => {
        await next?.catch(() => undefined);
        throw error;
      });
      if (moved) {
        await next?.catch(() => undefined);
        break;
      }
      if (!next) {
        const status = await options.db.selectFrom('projection_checkpoints').select('status').where('name', '=', projection.name).executeTakeFirstOrThrow();
        return status.status === 'running' ? 'idle' : 'stopped';
      }
      from = page.through;
      current = await next;
    }
  }
}

export type Projector = { stop(): Promise<void>; readonly active: () => readonly string[] };

/**
 * Follows the log for every async projection. Each projection is run by at most one process
 * at a time (a session advisory lock); the others stand by and take over when it is freed.
 * The projections this process holds advance together: one log read per batch for all.
 * Wakes on appends; after a wake that found nothing (an older transaction still holds the
 * snapshot horizon back) it looks again shortly, with back-off. Inline projections are
 * only watched for a version change, which the holder of their lock rebuilds.
 */
export async function startProjector(options: ProjectorOptions): Promise<Projector> {
  const batchSize = options.batchSize ?? 5000;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const { db, logger } = options;
  const inline = options.inline ?? [];
  // Stopping interrupts a catch-up from the start between batches (its copy is kept).
  const stopping = new AbortController();
  const runner: RunnerOptions = { ...options, signal: stopping.signal };
  const all = [...options.projections, ...inline];

  for (const projection of all) await ensureCheckpoint(db, projection);

  // A projection whose code changed version is rebuilt by the one process that holds it;
  // an inline one also when it last ran async (its rows may miss events no one applied).
  const versionChecked = new Set<string>();
  // A rebuild that fails is logged and tried again on a later poll; it never stops the others.
  const ensureVersion = async (projection: Projection, isInline: boolean): Promise<boolean> => {
    if (versionChecked.has(projection.name)) return true;
    try {
      await checkVersion(projection, isInline);
      versionChecked.add(projection.name);
      return true;
    } catch (error) {
      logger.error('projection rebuild failed; will retry', { projection: projection.name, error: error instanceof Error ? error.message : String(error) });
      return false;
    }
  };
  const checkVersion = async (projection: Projection, isInline: boolean) => {
    const stored = await db.selectFrom('projection_checkpoints').select(['version', 'status', 'major', 'minor']).where('name', '=', projection.name).executeTakeFirstOrThrow();
    if (isInline && stored.status !== 'inline' && (await neverApplied(options, projection, stored))) {
      // Nothing of its in the log that appends did not apply inline: it is current as it is.
      await db.updateTable('projection_checkpoints').set({ status: 'inline', version: projection.version, updated_at: new Date() }).where('name', '=', projection.name).execute();
    } else if (stored.version !== projection.version || (isInline ? stored.status !== 'inline' : stored.status === 'inline')) {
      // An async projection that last ran inline has no checkpoint worth following: rebuilt too.
      logger.info('projection rebuilding', { projection: projection.name, from: stored.version, to: projection.version, lifecycle: isInline ? 'inline' : 'async' });
      await rebuildBlueGreen({ db, eventStore: options.eventStore, logger, inline: isInline }, projection);
    }
  };

  const locks = await holdProjectionLocks(options.databaseUrl, all.map((p) => p.name));
  const held = locks.held;
  let stopped = false;
  let running: Promise<void> | null = null;
  let pending = false;
  let retryDelay: number | null = null;
  let retryTimer: NodeJS.Timeout | null = null;

  const tryLocks = () => (stopped ? Promise.resolve() : locks.tryAll());

  const drive = () => {
    if (stopped) return;
    if (running) {
      pending = true;
      return;
    }
    running = (async () => {
      for (const projection of inline) if (held.has(projection.name)) await ensureVersion(projection, true);
      let outcome: BatchOutcome;
      do {
        pending = false;
        const mine: Projection[] = [];
        for (const projection of options.projections) if (held.has(projection.name) && (await ensureVersion(projection, false))) mine.push(projection);
        do {
          outcome = await runBatch(runner, mine, batchSize);
        } while (outcome === 'more' && !stopped);
      } while (pending && !stopped);
      if (outcome !== 'stopped') scheduleRetry();
    })()
      .catch((error: unknown) => logger.error('projector batch failed; will retry', { error: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        running = null;
      });
  };

  // After a wake, look again at growing intervals (10 ms up to 2,560 ms, about 5 s in all):
  // an event announced by a wake-up stays invisible while an older transaction anywhere is
  // still open. Up to 640 ms (1.3 s in all), a transaction held a little longer on a busy
  // machine left the event to the safety poll.
  const scheduleRetry = () => {
    if (retryDelay === null || retryDelay > 2_560 || retryTimer) return;
    const delay = retryDelay;
    retryDelay *= 2;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      drive();
    }, delay);
  };

  const wake = () => {
    retryDelay = 10;
    drive();
  };

  await tryLocks();
  const unwatch = options.projections.length > 0 ? await options.eventStore.watch(wake) : async () => undefined;
  // The safety poll asks two cheap questions (where is the log's head, where is each
  // checkpoint) and drives only when a held projection is behind, or newly held.
  const drivenOnce = new Set<string>();
  const poll = setInterval(() => {
    void (async () => {
      await tryLocks();
      const head = await options.eventStore.headPosition();
      const rows = await db.selectFrom('projection_checkpoints').select(['name', 'major', 'minor', 'status']).execute();
      let behind = false;
      for (const projection of all) {
        if (!held.has(projection.name)) continue;
        const row = rows.find((r) => r.name === projection.name);
        const isInline = inline.includes(projection);
        if (!drivenOnce.has(projection.name) || !versionChecked.has(projection.name)) behind = true;
        else if (!isInline && row?.status === 'running' && comparePositions({ major: BigInt(row.major), minor: BigInt(row.minor) }, head) < 0) behind = true;
        drivenOnce.add(projection.name);
      }
      if (behind) drive();
    })().catch(() => undefined);
  }, pollIntervalMs);
  wake();

  return {
    active: () => [...held],
    async stop() {
      stopped = true;
      stopping.abort();
      clearInterval(poll);
      if (retryTimer) clearTimeout(retryTimer);
      await unwatch();
      await running;
      await locks.close();
    },
  };
}

/**
 * Runs batches until the projection has applied the log up to `target` (a write of the
 * caller's own). An event can stay invisible for a moment while an older transaction
 * anywhere is still open, so an empty batch waits briefly and looks again.
 */
export async function catchUpTo(options: RunnerOptions, projection: Projection, target: GlobalPosition, timeoutMs = 30_000): Promise<BatchOutcome> {
  await ensureCheckpoint(options.db, projection);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const outcome = await runBatch(options, [projection], 5000);
    if (outcome === 'stopped') return outcome;
    const row = await options.db.selectFrom('projection_checkpoints').select(['major', 'minor']).where('name', '=', projection.name).executeTakeFirstOrThrow();
    if (comparePositions({ major: BigInt(row.major), minor: BigInt(row.minor) }, target) >= 0) return 'idle';
    if (outcome === 'idle') {
      if (Date.now() > deadline) throw new Error(`projection ${projection.name} did not reach the write within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}
