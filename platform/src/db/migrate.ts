import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

/** The migrations this version of Cairn knows, in the order they apply. */
export async function migrationFiles(): Promise<string[]> {
  return (await readdir(migrationsDir)).filter((f) => f.endsWith('.sql')).sort();
}

/**
 * The tables a migration asks to have vacuumed once it committed (`-- cairn:vacuum-after
 * a, b` in its text): one that rewrote every row of a table read by index-only walks leaves
 * the visibility map empty, and until autovacuum came by each entry was fetched from the
 * heap (the first page of a caller with 100,000 stars: 23 requests/s instead of 982 after
 * 0041). VACUUM cannot run in the migration's transaction.
 */
export function tablesToVacuum(sql: string): string[] {
  return [...sql.matchAll(/^-- cairn:vacuum-after (.+)$/gm)].flatMap((m) => (m[1] ?? '').split(',').map((t) => t.trim())).filter((t) => /^[a-z_][a-z0-9_]*$/.test(t));
}

/**
 * Applies the numbered SQL files once each, in order, under an advisory lock so that
 * several processes starting together do not race.
 */
export async function migrate(pool: pg.Pool): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock(hashtext($1))', ['cairn:migrations']);
    await client.query('create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())');
    const done = new Set((await client.query<{ name: string }>('select name from schema_migrations')).rows.map((r) => r.name));
    const files = await migrationFiles();
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      const sql = await readFile(path.join(migrationsDir, file), 'utf8');
      await client.query('begin');
      try {
        await client.query(sql);
        await client.query('insert into schema_migrations (name) values ($1)', [file]);
        await client.query('commit');
      } catch (error) {
        await client.query('rollback');
        throw new Error(`migration ${file} failed: ${(error as Error).message}`, { cause: error });
      }
      // Only sooner than autovacuum would: a vacuum that fails (cancelled, say) leaves the migration applied.
      for (const table of tablesToVacuum(sql)) await client.query(`vacuum (analyze) ${table}`).catch(() => undefined);
      applied.push(file);
    }
    return applied;
  } finally {
    await client.query('select pg_advisory_unlock(hashtext($1))', ['cairn:migrations']).catch(() => undefined);
    client.release();
  }
}
