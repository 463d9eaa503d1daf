import type pg from 'pg';
import { listen } from '../event-store/postgres-event-store.ts';
import { authChannel, type InvalidationKind } from './invalidations.ts';

type Entry<V> = { value: V; expiresAt: number };

export class ExpiringMap<V> {
  private readonly entries = new Map<string, Entry<V>>();
  /** Moves on every eviction: a value read from the database before an eviction is not cached. */
  generation = 0;
  private readonly maxEntries: number;
  constructor(maxEntries: number) {
    this.maxEntries = maxEntries;
  }

  get(key: string, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V, expiresAt: number, readAtGeneration = this.generation): void {
    if (readAtGeneration !== this.generation) return;
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expiresAt });
  }

  delete(key: string): void {
    this.generation += 1;
    this.entries.delete(key);
  }

  deleteWhere(predicate: (value: V) => boolean): void {
    this.generation += 1;
    for (const [key, entry] of this.entries) if (predicate(entry.value)) this.entries.delete(key);
  }

  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }
}

export type CachedToken = { readonly userId: string; readonly scopes: ReadonlySet<string>; readonly clientId: string; readonly grantId: string | null };
export type CachedUser = { readonly id: string; readonly email: string; readonly isActive: boolean; readonly isSystemAdmin: boolean };
export type CachedSession = { readonly userId: string };

export type AuthCache = {
  readonly tokens: ExpiringMap<CachedToken>;
  readonly users: ExpiringMap<CachedUser>;
  readonly sessions: ExpiringMap<CachedSession>;
  /** Forgets at once in this process; other processes follow the invalidation log. */
  evict(kind: InvalidationKind, key: string): void;
  /** Reads the invalidation log now: after a write of this process that changed who may do what. */
  refresh(): Promise<void>;
  close(): Promise<void>;
};

const followIntervalMs = 500;

/**
 * Verified tokens, sessions and users, kept in memory so that checking credentials costs
 * no database round trip on the hot path. Revocations, sign-outs and user changes reach
 * every process through the `auth_invalidations` log (NOTIFY, and a poll every 500 ms),
 * so a revoked token or a deactivated user is refused within a second. User changes that
 * matter here (activity, administrator rights) are announced by the identity projection.
 */
export async function createAuthCache(pool: pg.Pool, connectionString: string): Promise<AuthCache> {
  const tokens = new ExpiringMap<CachedToken>(50_000);
  const users = new ExpiringMap<CachedUser>(50_000);
  const sessions = new ExpiringMap<CachedSession>(50_000);

  const start = await pool.query<{ id: string | null }>('select max(id)::text as id from auth_invalidations');
  let lastId = start.rows[0]?.id ?? '0';

  const evict = (kind: InvalidationKind, key: string) => {
    switch (kind) {
      case 'token':
        tokens.delete(key);
        return;
      case 'grant':
        tokens.deleteWhere((t) => t.grantId === key);
        return;
      case 'session':
        sessions.delete(key);
        return;
      case 'user':
        users.delete(key);
        tokens.deleteWhere((t) => t.userId === key);
        sessions.deleteWhere((s) => s.userId === key);
        return;
    }
  };

  let following: Promise<void> | null = null;
  let followAgain = false;
  const follow = async (): Promise<void> => {
    if (following) {
      followAgain = true;
      return following;
    }
    following = readInvalidations().finally(() => {
      following = null;
    });
    await following;
    if (followAgain) {
      followAgain = false;
      await follow();
    }
  };
  const readInvalidations = async () => {
    try {
      const { rows } = await pool.query<{ id_text: string; kind: InvalidationKind; key: string }>(
        'select auth_invalidations.id::text as id_text, kind, key from auth_invalidations where auth_invalidations.id > $1::bigint order by auth_invalidations.id',
        [lastId],
      );
      for (const row of rows) {
        evict(row.kind, row.key);
        lastId = row.id_text;
      }
    } catch {
      // The next notification or tick tries again.
    }
  };

  const stopAuth = await listen(connectionString, authChannel, () => void follow());
  const timer = setInterval(() => void follow(), followIntervalMs);
  timer.unref();

  return {
    tokens,
    users,
    sessions,
    evict,
    refresh: follow,
    async close() {
      clearInterval(timer);
      await stopAuth();
    },
  };
}
