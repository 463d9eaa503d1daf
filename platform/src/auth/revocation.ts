import type pg from 'pg';
import { recordInvalidation, type LocalEviction } from './invalidations.ts';

type Removed = { model: string; id: string; grant_id: string | null };

/**
 * Removes rows of the OAuth server's storage and tells every process to forget what it
 * cached of them, in one transaction: a token or grant removed here is refused by every
 * running service within its invalidation delay (docs/sign-in.md).
 */
async function removeAndInvalidate(pool: pg.Pool, condition: string, values: readonly unknown[], evictLocally: LocalEviction): Promise<Removed[]> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const { rows } = await client.query<Removed>(`delete from oidc_payloads where ${condition} returning model, id, grant_id`, [...values]);
    const grants = new Set(rows.flatMap((r) => (r.model === 'Grant' ? [r.id] : r.grant_id ? [r.grant_id] : [])));
    await recordInvalidation(client, 'grant', [...grants]);
    await recordInvalidation(client, 'token', rows.filter((r) => r.model === 'AccessToken').map((r) => r.id));
    await client.query('commit');
    // This process forgets at once; the others follow the invalidation log.
    for (const grant of grants) evictLocally('grant', grant);
    for (const row of rows) if (row.model === 'AccessToken') evictLocally('token', row.id);
    return rows;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** A grant with every token and code issued under it: a user's consent to one client, withdrawn. */
export async function revokeGrant(pool: pg.Pool, grantId: string, evictLocally: LocalEviction = () => undefined): Promise<{ accessTokens: number }> {
  const rows = await removeAndInvalidate(pool, `grant_id = $1 or (model = 'Grant' and id = $1)`, [grantId], evictLocally);
  return { accessTokens: rows.filter((r) => r.model === 'AccessToken').length };
}

/** One access token that belongs to no grant (none should, but the storage allows it). */
export async function revokeAccessToken(pool: pg.Pool, tokenId: string, evictLocally: LocalEviction = () => undefined): Promise<void> {
  await removeAndInvalidate(pool, `model = 'AccessToken' and id = $1`, [tokenId], evictLocally);
}

/** A client, with every grant, token and code it holds; false when there was no such client. */
export async function revokeClient(pool: pg.Pool, clientId: string, evictLocally: LocalEviction = () => undefined): Promise<{ revoked: boolean; grants: number; accessTokens: number }> {
  const rows = await removeAndInvalidate(pool, `(model = 'Client' and id = $1) or (model <> 'Client' and payload->>'clientId' = $1)`, [clientId], evictLocally);
  return {
    revoked: rows.some((r) => r.model === 'Client'),
    grants: rows.filter((r) => r.model === 'Grant').length,
    accessTokens: rows.filter((r) => r.model === 'AccessToken').length,
  };
}
