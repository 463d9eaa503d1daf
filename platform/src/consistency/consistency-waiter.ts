import type pg from 'pg';
import { comparePositions, type GlobalPosition } from '../event-store/event-store.ts';
import { listen } from '../event-store/postgres-event-store.ts';

export const progressChannel = 'cairn_projections';

type Waiter = { position: GlobalPosition; names: readonly string[]; resolve: (ok: boolean) => void; timer: NodeJS.Timeout };

export type ConsistencyWaiter = {
  /** Resolves true once every named projection has applied the log up to `position`. */
  waitFor(position: GlobalPosition, projectionNames: readonly string[], timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
};

/**
 * DECISIONS.md section 5. Projectors NOTIFY after each committed batch; every waiter of
 * this process is then checked with one query. A slow poll covers a lost notification.
 */
export async function createConsistencyWaiter(pool: pg.Pool, connectionString: string): Promise<ConsistencyWaiter> {
  const waiters = new Set<Waiter>();
  let checking = false;
  let recheck = false;

  const caughtUp = (rows: readonly { name: string; major: string; minor: string; status: string }[], waiter: Waiter) =>
    waiter.names.every((name) => {
      const row = rows.find((r) => r.name === name);
      return row !== undefined && row.status === 'running' && comparePositions({ major: BigInt(row.major), minor: BigInt(row.minor) }, waiter.position) >= 0;
    });

  const check = async (): Promise<void> => {
    if (checking) {
      recheck = true;
      return;
    }
    checking = true;
    try {
      do {
        recheck = false;
        if (waiters.size === 0) break;
        const names = [...new Set([...waiters].flatMap((w) => w.names))];
        const { rows } = await pool.query<{ name: string; major: string; minor: string; status: string }>(
          'select name, major::text, minor::text, status from projection_checkpoints where name = any($1)',
          [names],
        );
        for (const waiter of waiters) {
          if (caughtUp(rows, waiter)) {
            waiters.delete(waiter);
            clearTimeout(waiter.timer);
            waiter.resolve(true);
          }
        }
      } while (recheck);
    } catch {
      // The next notification or poll tries again.
    } finally {
      checking = false;
    }
  };

  const stopListening = await listen(connectionString, progressChannel, () => void check());
  const poll = setInterval(() => void check(), 200);
  poll.unref();

  return {
    waitFor(position, projectionNames, timeoutMs) {
      if (projectionNames.length === 0) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          resolve(false);
        }, timeoutMs);
        const waiter: Waiter = { position, names: projectionNames, resolve, timer };
        waiters.add(waiter);
        void check();
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
