import pg from 'pg';

export type Database = pg.Pool;
export type DbClient = pg.PoolClient;

/** Bounds on a pool's waits; each unset one is no bound (docs/observability.md, "Database outages"). */
export type PoolTimeouts = {
  /** Opening a connection, and waiting for a free one when every connection is busy. */
  readonly connectTimeoutMs?: number | undefined;
  /** One statement: the server cancels it (statement_timeout), and the client stops waiting a moment later. */
  readonly queryTimeoutMs?: number | undefined;
  /** Told of each wait for a free connection that ran out: `busy` when the server finished statements meanwhile (DatabaseBusyError). */
  readonly onWaitRanOut?: ((busy: boolean) => void) | undefined;
};

/**
 * The client's own wait outlasts the server's statement_timeout by this much, so that a
 * slow statement on a live server ends with the server's cancel (the backend stops working),
 * and only a server that answers nothing at all (a black hole) meets the client's timer.
 */
const clientMarginMs = 1000;

export function createPool(connectionString: string, max = 10, timeouts: PoolTimeouts = {}): pg.Pool {
  const { connectTimeoutMs, queryTimeoutMs } = timeouts;
  const pool = new pg.Pool({
    connectionString,
    max,
    application_name: 'cairn',
    // No JIT on Cairn's connections: PostgreSQL compiles a statement's expressions once its
    // estimated cost passes jit_above_cost, and a bounded walk is estimated at its LIMIT's
    // worst case: a listing page of 6 ms spent 19 ms compiling (docs/benchmarks.md). A
    // startup parameter, as statement_timeout is; `options` in DATABASE_URL replaces it.
    options: '-c jit=off',
    ...(connectTimeoutMs ? { connectionTimeoutMillis: connectTimeoutMs } : {}),
    ...(queryTimeoutMs ? { statement_timeout: queryTimeoutMs, query_timeout: queryTimeoutMs + clientMarginMs } : {}),
  });
  // A connection that drops (a restart, a failover, a terminated backend) must not crash
  // the process: idle clients report it on the pool, checked-out ones on themselves. The
  // query in flight still fails, and its caller handles that.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  reportBusyWaits(pool, timeouts.onWaitRanOut);
  return pool;
}

/**
 * A wait for a free connection ran out while the pool kept serving others: the process is
 * busy, the database is there (docs/observability.md, "Connections"). Answered 503
 * `service_busy`, not as an outage.
 */
export class DatabaseBusyError extends Error {
  constructor(waitedMs: number, options?: ErrorOptions) {
    super(`every connection of the pool stayed busy serving others for ${Math.round(waitedMs)} ms`, options);
    this.name = 'DatabaseBusyError';
  }
}

const waitRanOut = (error: unknown): error is Error => error instanceof Error && /timeout exceeded when trying to connect/.test(error.message);

/**
 * How long a wait that saw no progress may look further: a connection of its own opened to
 * the server and `select 1` (liveProbe). A black hole is then answered this much after the
 * connect timeout.
 */
const probeBoundMs = 1_000;

/**
 * Whether the server answers at all, asked on a connection of its own (the pool is full):
 * a full pool whose connections all run statements longer than the wait saw no progress,
 * yet the server is there. Waits that run out together share one probe.
 */
function liveProbe(pool: pg.Pool): () => Promise<boolean> {
  let running: Promise<boolean> | undefined;
  const probe = async (): Promise<boolean> => {
    // pg-pool keeps a password out of its options' enumerable keys: passed on by name.
    const client = new pg.Client({ ...pool.options, password: pool.options.password, application_name: 'cairn-probe', connectionTimeoutMillis: probeBoundMs, query_timeout: probeBoundMs });
    client.on('error', () => undefined);
    let timer: NodeJS.Timeout | undefined;
    const bounded = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), probeBoundMs);
    });
    const answered = (async () => {
      await client.connect();
      await client.query('select 1');
      return true;
    })().catch(() => false);
    try {
      return await Promise.race([answered, bounded]);
    } finally {
      clearTimeout(timer);
      // Not awaited: ending a connection to a server that answers nothing would wait too.
      client.end().catch(() => undefined);
    }
  };
  return () => {
    running ??= probe().finally(() => {
      running = undefined;
    });
    return running;
  };
}

/**
 * pg-pool words a full pool's wait that runs out exactly as it words a server that stopped
 * answering (every connection hung). What tells them apart is progress: on a busy pool the
 * server keeps finishing statements while the caller waits; on a hung one it finishes none.
 * The sign is the server's own: ReadyForQuery, which it sends after each statement (a result
 * or an error of its own) and never after a fatal error, while callers release connections
 * alike after a result and after a read timeout (Kysely releases with `false` either way).
 * Each wait that ran out although some connection of the pool saw ReadyForQuery since it
 * began becomes a DatabaseBusyError. A full pool that saw none may be held by statements
 * longer than the wait (moves of large subtrees, appends waiting on a rebuild's swap): the
 * server is asked on a connection of its own (liveProbe), and an answer makes the wait busy
 * too. Any other stays pg-pool's error, an outage.
 */
function reportBusyWaits(pool: pg.Pool, onWaitRanOut: ((busy: boolean) => void) | undefined): void {
  let lastAnsweredAt = Number.NEGATIVE_INFINITY;
  pool.on('connect', (client) => {
    // The client's protocol stream, which pg's types do not declare.
    const connection = (client as unknown as { connection?: { on(event: 'readyForQuery', listener: () => void): void } }).connection;
    connection?.on('readyForQuery', () => {
      lastAnsweredAt = performance.now();
    });
  });
  const probe = liveProbe(pool);
  // The server's answer to a probe is progress too: the waits that began before it are
  // busy without a probe of their own, so a pool probes about once per connect timeout.
  let probeAnsweredAt = Number.NEGATIVE_INFINITY;
  const answers = async () => {
    const answered = await probe();
    if (answered) probeAnsweredAt = performance.now();
    return answered;
  };
  const full = () => pool.totalCount >= (pool.options.max ?? 10) && pool.idleCount === 0;
  const classify = async (error: unknown, since: number): Promise<unknown> => {
    if (!waitRanOut(error)) return error;
    const busy = lastAnsweredAt >= since || (full() && (probeAnsweredAt >= since || (await answers())));
    onWaitRanOut?.(busy);
    return busy ? new DatabaseBusyError(performance.now() - since, { cause: error }) : error;
  };
  const connect = pool.connect.bind(pool) as (callback?: ConnectCallback) => Promise<pg.PoolClient> | undefined;
  // pool.query checks out through this.connect with a callback; callers through the promise.
  pool.connect = ((callback?: ConnectCallback) => {
    const since = performance.now();
    if (callback) {
      return connect((error, client, done) => {
        if (!error) return callback(error, client, done);
        void classify(error, since).then(
          (classified) => callback(classified as Error, client, done),
          () => callback(error, client, done),
        );
      });
    }
    return (connect() as Promise<pg.PoolClient>).catch(async (error: unknown) => {
      throw await classify(error, since).catch(() => error);
    });
  }) as typeof pool.connect;
}

type ConnectCallback = (error: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;

/**
 * Whether `error` is the pool's wait for a free connection running out while every
 * connection of `pool` is open and busy: not a server that refuses new connections (pg-pool
 * says the same words then; the pool's own counts tell the two apart). A server that stopped
 * answering also leaves every connection busy, hung: only a pool that a busy process fills
 * first (the costly reads') may call this busy rather than an outage (docs/observability.md).
 * A wait that saw the pool make progress (DatabaseBusyError) is busy on any pool.
 */
export function isPoolSaturated(pool: pg.Pool, error: unknown): boolean {
  if (error instanceof DatabaseBusyError) return true;
  if (!waitRanOut(error)) return false;
  return pool.totalCount >= (pool.options.max ?? 10) && pool.idleCount === 0;
}

export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A connection that cannot even roll back (cut, or a server that stopped answering) is
  // dropped, not handed to the next caller with a statement still waiting on it.
  let broken: Error | undefined;
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch((failure: unknown) => {
      broken = failure instanceof Error ? failure : new Error(String(failure));
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
