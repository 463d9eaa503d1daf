import pg from 'pg';

const lockKey = (name: string) => `cairn:projection:${name}`;

/** Which projections this process holds: it runs those, and stands by for the others. */
export type ProjectionLocks = {
  readonly held: ReadonlySet<string>;
  /** Asks for every projection not held yet; one attempt at a time. */
  tryAll(): Promise<void>;
  /** Gives every lock back. */
  close(): Promise<void>;
};

/**
 * Session advisory locks, one per projection, on a connection of their own: they live as
 * long as it does. If it drops, every lock is gone and the next attempt connects again and
 * competes for them anew.
 */
export async function holdProjectionLocks(databaseUrl: string, names: readonly string[]): Promise<ProjectionLocks> {
  const held = new Set<string>();
  let client: pg.Client | null = null;
  let closed = false;
  const connect = async (): Promise<pg.Client> => {
    const connection = new pg.Client({ connectionString: databaseUrl, application_name: 'cairn-projector-locks' });
    connection.on('error', () => {
      if (client === connection) client = null;
      held.clear();
      connection.end().catch(() => undefined);
    });
    await connection.connect();
    return connection;
  };
  client = await connect();

  const tryOnce = async () => {
    if (closed) return;
    if (!client) {
      const connected = await connect().catch(() => null);
      // Closed meanwhile: close() had no connection to end, so this one is ended here.
      if (closed) {
        await connected?.end().catch(() => undefined);
        return;
      }
      client = connected;
    }
    const current = client;
    if (!current) return;
    for (const name of names) {
      if (held.has(name) || closed) continue;
      try {
        const { rows } = await current.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtext($1)) as locked', [lockKey(name)]);
        if (rows[0]?.locked) held.add(name);
      } catch {
        return;
      }
    }
  };
  // A poll tick can come while the last attempt still waits on the connection, which takes
  // one query at a time (and must not be opened twice).
  let attempt: Promise<void> | null = null;
  return {
    held,
    tryAll() {
      attempt ??= tryOnce().finally(() => {
        attempt = null;
      });
      return attempt;
    },
    async close() {
      closed = true;
      await client?.end().catch(() => undefined);
    },
  };
}
