import { isDatabaseUnavailable } from '../http/database-outage.ts';
import { DatabaseBusyError } from './pool.ts';
import type { ReadPools } from './read-routing.ts';
import { defaultWalGeometry, parseLsn, replayTarget, type WalGeometry } from './wal-position.ts';

/** Where one request reads: the primary, or a standby with its replay lag when it was chosen. */
export type ReadTarget = { readonly name: string; readonly standby: boolean; readonly pools: ReadPools; readonly lagMs: number };

export type StandbyStatus = { readonly name: string; readonly reachable: boolean; readonly inRotation: boolean; readonly replayLsn: bigint | null; readonly lagMs: number | null };

export type StandbyRouter = {
  /** A read without a token: the next standby in rotation, else the primary. */
  pick(): ReadTarget;
  /** The primary, for a read no standby can answer. */
  primary(): ReadTarget;
  /**
   * A read that must see the write at `walLsn` (the token's WAL position): a standby in
   * rotation that has replayed it, waiting up to `waitMs` for one; else the primary.
   */
  pickReplayed(walLsn: bigint, waitMs: number): Promise<ReadTarget>;
  /**
   * A read on `target` failed. True when the failure was the standby's (unreachable, shut
   * down, a statement cancelled by replay: it leaves the rotation) or the read tried to
   * write (a standby cannot): the caller runs the read again on the primary.
   */
  failed(target: ReadTarget, error: unknown): boolean;
  /**
   * The primary's WAL insert position, read after this call: past every commit the caller
   * knows of (a token's write, a projector's checkpoint it waited for). Concurrent callers
   * share one reading; none uses a reading that started before it asked.
   */
  primaryLsn(): Promise<bigint>;
  status(): StandbyStatus[];
  close(): Promise<void>;
};

export type StandbyOptions = {
  readonly primary: ReadPools;
  readonly standbys: readonly { readonly name: string; readonly pools: ReadPools }[];
  /** A standby whose replay is further behind than this leaves the rotation until it has caught up. */
  readonly maxLagMs: number;
  /** How often the primary's WAL position and each standby's replay position are read while no read waits. */
  readonly pollMs?: number;
  /** While a read with a token waits, how soon each standby is read again. */
  readonly waitPollMs?: number;
  /** Told when a standby leaves the rotation (with why) or comes back: for the log. */
  readonly onChange?: (name: string, inRotation: boolean, reason: string) => void;
};

type Standby = {
  readonly name: string;
  readonly pools: ReadPools;
  reachable: boolean;
  inRotation: boolean;
  replayLsn: bigint | null;
  /** Out of rotation: the primary position it must replay to come back (read once it answers again). */
  returnAt: bigint | null;
  geometry: WalGeometry | null;
  polling: boolean;
};

type Waiter = { readonly lsn: bigint; readonly resolve: (standby: Standby | null) => void };

// 25006 read_only_sql_transaction: a statement that writes, sent to a standby.
const readOnly = (error: unknown) => error instanceof Error && (error as Error & { code?: unknown }).code === '25006';

// 40001 on a standby: a statement cancelled because replay had to remove rows it could see.
const recoveryConflict = (error: unknown) => error instanceof Error && (error as Error & { code?: unknown }).code === '40001' && /recovery/.test(error.message);

/**
 * Reads from PostgreSQL hot standbys (docs/consistency.md, "Standbys"). One poller per
 * standby reads `pg_last_wal_replay_lsn()` (every `pollMs`, and every `waitPollMs` while a
 * read waits), and one reads the primary's WAL insert position: requests never query a
 * standby's position themselves. The lag is how long ago the primary wrote the oldest WAL
 * the standby has not replayed yet (0 when it has everything the primary had at the last
 * reading).
 */
export async function createStandbyRouter(options: StandbyOptions): Promise<StandbyRouter> {
  const pollMs = options.pollMs ?? 100;
  const waitPollMs = options.waitPollMs ?? 2;
  const primaryTarget: ReadTarget = { name: 'primary', standby: false, pools: options.primary, lagMs: 0 };
  const standbys: Standby[] = options.standbys.map(({ name, pools }) => ({ name, pools, reachable: false, inRotation: false, replayLsn: null, returnAt: null, geometry: null, polling: false }));
  const waiters = new Set<Waiter>();
  // The primary's insert position over the last while: [time, lsn], oldest first.
  const samples: { at: number; lsn: bigint }[] = [];
  const keepMs = Math.max(options.maxLagMs * 2, 10_000);
  let next = 0;
  let closed = false;

  const geometryOf = (s: Standby) => s.geometry ?? defaultWalGeometry;
  const hasReplayed = (s: Standby, lsn: bigint) => s.replayLsn !== null && s.replayLsn >= replayTarget(lsn, geometryOf(s));

  const lagOf = (s: Standby): number | null => {
    if (s.replayLsn === null) return null;
    const behind = samples.find((sample) => !hasReplayed(s, sample.lsn));
    return behind ? Date.now() - behind.at : 0;
  };

  const settle = (s: Standby) => {
    for (const waiter of waiters) {
      if (!s.inRotation || !hasReplayed(s, waiter.lsn)) continue;
      waiters.delete(waiter);
      waiter.resolve(s);
    }
  };

  const takeOut = (s: Standby, reason: string) => {
    if (s.inRotation) options.onChange?.(s.name, false, reason);
    s.inRotation = false;
    s.returnAt = null;
    // With no standby left to wait on, waiting reads go to the primary now, not at their bound.
    if (standbys.every((other) => !other.inRotation)) {
      for (const waiter of waiters) waiter.resolve(null);
      waiters.clear();
    }
  };

  const readGeometry = async (s: Standby) => {
    const { rows } = await s.pools.plain.query<{ block: string; segment: string }>(
      "select current_setting('wal_block_size') as block, (select setting from pg_settings where name = 'wal_segment_size') as segment",
    );
    const row = rows[0];
    if (row) s.geometry = { blockSize: BigInt(row.block), segmentSize: BigInt(row.segment) };
  };

  const pollStandby = async (s: Standby): Promise<void> => {
    if (s.polling || closed) return;
    s.polling = true;
    try {
      if (!s.geometry) await readGeometry(s);
      const { rows } = await s.pools.plain.query<{ lsn: string | null; recovery: boolean }>('select pg_last_wal_replay_lsn()::text as lsn, pg_is_in_recovery() as recovery');
      const lsn = parseLsn(rows[0]?.lsn ?? '');
      // Not a standby (promoted, or a primary by mistake): its replay position says nothing of the primary's writes.
      if (lsn === null || rows[0]?.recovery !== true) throw new Error(`${s.name} is not a standby in recovery`);
      s.reachable = true;
      s.replayLsn = lsn;
      const newest = samples.at(-1)?.lsn;
      if (!s.inRotation) {
        // Back in rotation once it has replayed what the primary had when it answered again.
        s.returnAt ??= newest ?? null;
        if (s.returnAt !== null && hasReplayed(s, s.returnAt)) {
          s.inRotation = true;
          options.onChange?.(s.name, true, 'reachable and caught up');
        }
      } else if ((lagOf(s) ?? Infinity) > options.maxLagMs) {
        takeOut(s, `replay more than ${options.maxLagMs} ms behind the primary`);
      }
      settle(s);
    } catch (error) {
      // A poll that waited in vain for a busy pool's connection learned nothing: the standby stays as it was.
      if (!(error instanceof DatabaseBusyError)) {
        s.reachable = false;
        takeOut(s, error instanceof Error ? error.message : String(error));
      }
    } finally {
      s.polling = false;
    }
  };

  const readPrimary = async (): Promise<bigint> => {
    const { rows } = await options.primary.plain.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn');
    const lsn = parseLsn(rows[0]?.lsn ?? '');
    if (lsn === null) throw new Error('the primary gave no WAL position');
    const now = Date.now();
    if (samples.at(-1)?.lsn !== lsn) samples.push({ at: now, lsn });
    while (samples.length > 1 && (samples[0]?.at ?? now) < now - keepMs) samples.shift();
    return lsn;
  };

  // One reading at a time; those who ask while it runs share the next one (as the read cache's snapshot readings).
  let running: Promise<bigint> | null = null;
  let queued: Promise<bigint> | null = null;
  const startReading = (): Promise<bigint> => {
    const reading = readPrimary().finally(() => {
      if (running === reading) running = null;
    });
    running = reading;
    return reading;
  };
  const primaryLsnAfterNow = (): Promise<bigint> => {
    if (!running) return startReading();
    queued ??= running
      .catch(() => undefined)
      .then(() => {
        queued = null;
        return startReading();
      });
    return queued;
  };

  const pollPrimary = async (): Promise<void> => {
    // The next tick tries again; the primary's own outage is reported by its requests.
    await primaryLsnAfterNow().catch(() => undefined);
  };

  const tick = setInterval(() => {
    void pollPrimary().then(() => Promise.all(standbys.map(pollStandby)));
  }, pollMs);
  tick.unref();

  // While a read waits, the standbys are read again as soon as each reading ends (one at a time per standby).
  let fastPolling: NodeJS.Timeout | null = null;
  const pollWhileWaiting = () => {
    if (fastPolling || closed) return;
    fastPolling = setTimeout(() => {
      fastPolling = null;
      if (waiters.size === 0) return;
      void Promise.all(standbys.filter((s) => s.inRotation).map(pollStandby)).then(pollWhileWaiting);
    }, waitPollMs);
  };

  const asTarget = (s: Standby): ReadTarget => ({ name: s.name, standby: true, pools: s.pools, lagMs: lagOf(s) ?? 0 });

  const inRotation = () => {
    const all = standbys.filter((s) => s.inRotation);
    // Round robin: each call starts one further along.
    next = (next + 1) % Math.max(1, all.length);
    return [...all.slice(next), ...all.slice(0, next)];
  };

  // The first readings before the first request: a process that starts serves from its standbys at once.
  await pollPrimary();
  await Promise.all(standbys.map(pollStandby));

  return {
    primary: () => primaryTarget,
    pick() {
      const [first] = inRotation();
      return first ? asTarget(first) : primaryTarget;
    },

    async pickReplayed(walLsn, waitMs) {
      const candidates = inRotation();
      const ready = candidates.find((s) => hasReplayed(s, walLsn));
      if (ready) return asTarget(ready);
      if (candidates.length === 0) return primaryTarget;
      const standby = await new Promise<Standby | null>((resolve) => {
        const waiter: Waiter = {
          lsn: walLsn,
          resolve: (s) => {
            clearTimeout(timer);
            resolve(s);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          resolve(null);
        }, waitMs);
        waiters.add(waiter);
        pollWhileWaiting();
      });
      return standby ? asTarget(standby) : primaryTarget;
    },

    failed(target, error) {
      if (!target.standby) return false;
      // A read that had to write (nothing should): the primary answers it, and the standby stays.
      if (readOnly(error)) return true;
      // Every connection to the standby busy with other reads: the primary answers this one, and the standby stays in rotation.
      if (error instanceof DatabaseBusyError) return true;
      if (!(isDatabaseUnavailable(error) || recoveryConflict(error))) return false;
      const standby = standbys.find((s) => s.name === target.name);
      if (standby) {
        standby.reachable = !isDatabaseUnavailable(error);
        takeOut(standby, `a read failed on it: ${error instanceof Error ? error.message : String(error)}`);
      }
      return true;
    },

    primaryLsn: primaryLsnAfterNow,

    status: () => standbys.map((s) => ({ name: s.name, reachable: s.reachable, inRotation: s.inRotation, replayLsn: s.replayLsn, lagMs: lagOf(s) })),

    async close() {
      closed = true;
      clearInterval(tick);
      if (fastPolling) clearTimeout(fastPolling);
      for (const waiter of waiters) waiter.resolve(null);
      waiters.clear();
    },
  };
}
