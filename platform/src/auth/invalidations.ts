import type pg from 'pg';

export const authChannel = 'cairn_auth';

export type InvalidationKind = 'token' | 'grant' | 'session' | 'user';

/** Called in the recording process right away, so its own next request is refused too. */
export type LocalEviction = (kind: InvalidationKind, key: string) => void;

type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

/** Records that every process must forget these keys; committed with the change itself when given its client. */
export async function recordInvalidation(db: Queryable, kind: InvalidationKind, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await db.query(
    `with added as (insert into auth_invalidations (kind, key) select $1, unnest($2::text[]) returning id)
     select pg_notify($3, '') from (select 1 from added limit 1) as any_added`,
    [kind, keys, authChannel],
  );
}
