import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { AuthCache } from './auth-cache.ts';
import { recordInvalidation } from './invalidations.ts';

export type SessionCookie = { readonly name: string; readonly secure: boolean };

/**
 * The signed-in web application's cookie: `__Host-` prefixed and `Secure` when the
 * service is served over https; plain and not `Secure` for local development over http.
 */
export function sessionCookie(publicUrl: string): SessionCookie {
  const secure = publicUrl.startsWith('https://');
  return { name: secure ? '__Host-cairn_session' : 'cairn_session', secure };
}

export function serializeSessionCookie(cookie: SessionCookie, value: string, maxAgeSeconds: number): string {
  const parts = [`${cookie.name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`];
  if (cookie.secure) parts.push('Secure');
  return parts.join('; ');
}

export function clearSessionCookie(cookie: SessionCookie): string {
  return serializeSessionCookie(cookie, '', 0);
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}

const digest = (value: string) => createHash('sha256').update(value).digest('hex');

export type WebSessions = {
  create(userId: string, userAgent: string | undefined): Promise<{ value: string; maxAgeSeconds: number }>;
  /** The user of a live session; memory first, the database on a miss. */
  find(value: string): Promise<{ userId: string } | null>;
  end(value: string): Promise<void>;
  endAllForUser(userId: string): Promise<void>;
};

export function createWebSessions(pool: pg.Pool, cache: AuthCache, ttlSeconds: number): WebSessions {
  return {
    async create(userId, userAgent) {
      const value = randomBytes(32).toString('base64url');
      await pool.query(
        "insert into web_sessions (id_digest, user_id, expires_at, user_agent) values ($1, $2, now() + make_interval(secs => $3), $4)",
        [digest(value), userId, ttlSeconds, userAgent?.slice(0, 300) ?? null],
      );
      return { value, maxAgeSeconds: ttlSeconds };
    },

    async find(value) {
      if (!/^[A-Za-z0-9_-]{43}$/.test(value)) return null;
      const key = digest(value);
      const cached = cache.sessions.get(key);
      if (cached) return cached;
      const generation = cache.sessions.generation;
      const { rows } = await pool.query<{ user_id: string; expires_at: Date }>('select user_id, expires_at from web_sessions where id_digest = $1 and expires_at > now()', [key]);
      const row = rows[0];
      if (!row) return null;
      const session = { userId: row.user_id };
      cache.sessions.set(key, session, Math.min(row.expires_at.getTime(), Date.now() + 300_000), generation);
      return session;
    },

    async end(value) {
      const key = digest(value);
      await pool.query('delete from web_sessions where id_digest = $1', [key]);
      await recordInvalidation(pool, 'session', [key]);
      cache.evict('session', key);
    },

    async endAllForUser(userId) {
      const { rows } = await pool.query<{ id_digest: string }>('delete from web_sessions where user_id = $1 returning id_digest', [userId]);
      await recordInvalidation(pool, 'session', rows.map((r) => r.id_digest));
      for (const row of rows) cache.evict('session', row.id_digest);
    },
  };
}
