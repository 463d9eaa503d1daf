import { errors } from 'oidc-provider';
import type pg from 'pg';
import { recordInvalidation, type InvalidationKind, type LocalEviction } from './invalidations.ts';

// What clients send as codes and tokens may hold anything; PostgreSQL text may not hold NUL.
/** Redemptions this close together are one client racing itself, not a replay. */
const raceWindowSeconds = 1;

const storable = (value: string) => !value.includes('\u0000') && value.isWellFormed() && value.length <= 1024;

type Payload = Record<string, unknown> & { grantId?: string; userCode?: string; uid?: string; consumed?: number };

/**
 * oidc-provider's storage, in PostgreSQL so that every service instance (and the `cairn`
 * command line) shares tokens, grants, sessions and dynamically created clients.
 */
export function createOidcAdapterClass(pool: pg.Pool, evictLocally: LocalEviction = () => undefined) {
  const invalidate = async (kind: InvalidationKind, key: string) => {
    await recordInvalidation(pool, kind, [key]);
    evictLocally(kind, key);
  };

  return class PostgresOidcAdapter {
    readonly model: string;
    constructor(model: string) {
      this.model = model;
    }

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      await pool.query(
        `insert into oidc_payloads (model, id, payload, grant_id, user_code, uid, expires_at)
         values ($1, $2, $3, $4, $5, $6, case when $7::int is null then null else now() + make_interval(secs => $7::int) end)
         on conflict (model, id) do update set payload = excluded.payload, grant_id = excluded.grant_id,
           user_code = excluded.user_code, uid = excluded.uid, expires_at = excluded.expires_at`,
        [this.model, id, JSON.stringify(payload), payload.grantId ?? null, payload.userCode ?? null, payload.uid ?? null, expiresIn ?? null],
      );
    }

    async find(id: string): Promise<Payload | undefined> {
      if (!storable(id)) return undefined;
      return this.findWhere('id = $2', id);
    }

    async findByUserCode(userCode: string): Promise<Payload | undefined> {
      if (!storable(userCode)) return undefined;
      return this.findWhere('user_code = $2', userCode);
    }

    async findByUid(uid: string): Promise<Payload | undefined> {
      if (!storable(uid)) return undefined;
      return this.findWhere('uid = $2', uid);
    }

    /** Atomic: of two redemptions racing, exactly one changes the row; the other fails. */
    async consume(id: string): Promise<void> {
      const result = await pool.query('update oidc_payloads set consumed_at = now() where model = $1 and id = $2 and consumed_at is null', [this.model, id]);
      // oidc-provider answers the losers of the race invalid_grant, like any reuse.
      if (result.rowCount === 0) throw new errors.InvalidGrant(`${this.model.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()} already consumed`);
    }

    async destroy(id: string): Promise<void> {
      await pool.query('delete from oidc_payloads where model = $1 and id = $2', [this.model, id]);
      if (this.model === 'AccessToken') await invalidate('token', id);
      if (this.model === 'Grant') await invalidate('grant', id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await pool.query('delete from oidc_payloads where model = $1 and grant_id = $2', [this.model, grantId]);
      if (this.model === 'AccessToken') await invalidate('grant', grantId);
    }

    private async findWhere(condition: string, value: string): Promise<Payload | undefined> {
      const { rows } = await pool.query<{ payload: Payload; consumed_at: Date | null; racing: boolean }>(
        // Expired rows are returned too: oidc-provider checks expiry itself, and answers an
        // expired device code `expired_token` (RFC 8628) only if it finds it. purge.ts removes them later.
        `select payload, consumed_at, consumed_at > now() - make_interval(secs => $3) as racing
         from oidc_payloads where model = $1 and ${condition}`,
        [this.model, value, raceWindowSeconds],
      );
      const row = rows[0];
      if (!row) return undefined;
      // A code or refresh token spent moments ago is answered as unspent: the request then
      // loses the atomic consume and gets invalid_grant. Reuse detection (which revokes the
      // whole grant) would otherwise also kill the parallel redemption that won.
      if (!row.consumed_at || row.racing) return row.payload;
      return { ...row.payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) };
    }
  };
}
