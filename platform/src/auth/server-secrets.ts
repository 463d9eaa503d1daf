import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type pg from 'pg';

/**
 * Made once by whichever process starts first; `on conflict do nothing` then a read back
 * makes every process use the same value.
 */
async function secret<T>(pool: pg.Pool, name: string, make: () => T): Promise<T> {
  await pool.query('insert into server_secrets (name, value) values ($1, $2) on conflict do nothing', [name, JSON.stringify(make())]);
  const { rows } = await pool.query<{ value: T }>('select value from server_secrets where name = $1', [name]);
  const row = rows[0];
  if (!row) throw new Error(`server secret ${name} is missing`);
  return row.value;
}

export type ServerSecrets = { readonly signingKey: Record<string, unknown>; readonly cookieKeys: string[] };

export async function loadServerSecrets(pool: pg.Pool): Promise<ServerSecrets> {
  const signingKey = await secret(pool, 'oidc_signing_key', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    return { ...privateKey.export({ format: 'jwk' }), use: 'sig', alg: 'RS256', kid: randomBytes(8).toString('hex') };
  });
  const cookieKeys = await secret(pool, 'cookie_keys', () => [randomBytes(32).toString('base64url')]);
  return { signingKey, cookieKeys };
}

/** The key that signs the service's own download links of fs content (docs/storage.md). */
export async function loadDownloadKey(pool: pg.Pool): Promise<string> {
  return secret(pool, 'download_key', () => randomBytes(32).toString('base64url'));
}

/** Seals webhook secrets in the log (docs/changes.md, "Webhooks"): AES-256-GCM. */
export async function loadWebhookKey(pool: pg.Pool): Promise<Buffer> {
  return Buffer.from(await secret(pool, 'webhook_key', () => randomBytes(32).toString('base64url')), 'base64url');
}
