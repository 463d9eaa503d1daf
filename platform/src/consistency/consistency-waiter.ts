import type pg from 'pg';
import { comparePositions, decodePosition, type GlobalPosition } from '../event-store/event-store.ts';
import { headPositionSql, listen } from '../event-store/postgres-event-store.ts';

export const progressChannel = 'cairn_projections';

type Waiter = { position: GlobalPosition; names: readonly string[]; needsHead: boolean; resolve: (ok: boolean) => void; timer: NodeJS.Timeout };
type Known = { position: GlobalPosition; running: boolean };

export type ConsistencyWaiter = {
  /**
   * Resolves true once every named projection has applied the log up to `position`.
   * `committed`: the caller's own write, known to be committed (inline read models have it).
   */
  waitFor(position: GlobalPosition, projectionNames: readonly string[], timeoutMs: number, options?: { committed?: boolean }): Promise<boolean>;
  /** Whether the projection is applied in the appends' own transactions (so a write's own statements see it). */
  isInline(projectionName: string): boolean;
  close(): Promise<void>;
};

export type ConsistencyWaiterOptions = {
  /**
   * Projections applied in the appends' own transactions: a position a client holds was
   * committed, and so is what they made of it. Waits on them end at once.
   */
  readonly inline?: readonly string[];
};

/**
 * DECISIONS.md section 5. Projectors NOTIFY `name@position` after each committed batch; the
 * waiter keeps every checkpoint in memory from those and resolves waiters without a query.
 * A bare name (a status change) or a lost notification is settled by reading the
 * checkpoints: at once for a bare name, and by a 200 ms poll while anyone waits.
 */
export async function createConsistencyWaiter(pool: pg.Pool, connectionString: string, options: ConsistencyWaiterOptions = {}): Promise<ConsistencyWaiter> {
  const inline = new Set(options.inline ?? []);
  const waiters = new Set<Waiter>();
  const known = new Map<string, Known>();
  // The newest committed position seen: inline read models have everything up to it. A
  // token from a client is a committed write unless forged; one beyond it is looked up.
  let committedHead: GlobalPosition = { major: 0n, minor: 0n };
  let querying = false;
  let requery = false;

  const caughtUp = (waiter: Waiter) =>
    (!waiter.needsHead || comparePositions(waiter.position, committedHead) <= 0) &&
    waiter.names.every((name) => {
      if (inline.has(name)) return true;
      const k = known.get(name);
      return k !== undefined && k.running && comparePositions(k.position, waiter.position) >= 0;
    });

  const settle = () => {
    for (const waiter of waiters) {
      if (!caughtUp(waiter)) continue;
      waiters.delete(waiter);
      clearTimeout(waiter.timer);
      waiter.resolve(true);
    }
  };

  const learn = (name: string, position: GlobalPosition, running: boolean) => {
    const previous = known.get(name);
    // Notifications may arrive out of order; a checkpoint only moves forward (a rebuild
    // announces itself by name and is read back).
    if (previous && previous.running === running && comparePositions(previous.position, position) > 0) return;
    known.set(name, { position, running });
  };

  const query = async (): Promise<void> => {
    if (querying) {
      requery = true;
      return;
    }
    querying = true;
    try {
      do {
        requery = false;
        const { rows } = await pool.query<{ name: string; major: string; minor: string; status: string }>(
          'select name, major::text, minor::text, status from projection_checkpoints',
        );
        for (const row of rows) known.set(row.name, { position: { major: BigInt(row.major), minor: BigInt(row.minor) }, running: row.status === 'running' });
        if ([...waiters].some((w) => w.needsHead)) {
          const head = await pool.query<{ xid: string; position: string }>(headPositionSql);
          const row = head.rows[0];
          if (row) committedHead = { major: BigInt(row.xid), minor: BigInt(row.position) };
        }
        settle();
      } while (requery);
    } catch {
      // The next notification or poll tries again.
    } finally {
      querying = false;
    }
  };

  const onNotify = (payload: string) => {
    const at = payload.lastIndexOf('@');
    const position = at > 0 ? decodePosition(payload.slice(at + 1)) : null;
    if (position) {
      learn(payload.slice(0, at), position, true);
      settle();
    } else {
      void query();
    }
  };

  const stopListening = await listen(connectionString, progressChannel, onNotify);
  await query();
  const poll = setInterval(() => {
    if (waiters.size > 0) void query();
  }, 200);
  poll.unref();

  return {
    isInline: (name) => inline.has(name),
    waitFor(position, projectionNames, timeoutMs, waitOptions = {}) {
      const names = projectionNames.filter((n) => !inline.has(n));
      const needsHead = waitOptions.committed !== true && names.length < projectionNames.length;
      if (names.length === 0 && !needsHead) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          resolve(false);
        }, timeoutMs);
        const waiter: Waiter = { position, names, needsHead, resolve, timer };
        if (caughtUp(waiter)) {
          clearTimeout(timer);
          resolve(true);
          return;
        }
        waiters.add(waiter);
        if (needsHead) void query();
      });
    },
    async close() {
      clearInterval(poll);
      for (const waiter of waiters) {
        clearTimeout(waiter.timer);
        waiter.resolve(false);
      }
      waiters.clear();
      await stopListening();
    },
  };
}
