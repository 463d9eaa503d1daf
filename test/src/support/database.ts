import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { databaseUrl } from './global-setup.ts';

/** A fresh database cloned from the migrated template; dropped with the run. */
export async function createTestDatabase(): Promise<string> {
  const server = inject('serverUrl');
  const name = `${inject('runPrefix')}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    // Cloning needs the template to have no other sessions: retry briefly if another file is cloning too.
    for (let attempt = 0; ; attempt += 1) {
      try {
        await admin.query(`create database ${name} template ${inject('templateDatabase')}`);
        break;
      } catch (error) {
        if (attempt >= 20 || !(error instanceof pg.DatabaseError) || error.code !== '55006') throw error;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  return databaseUrl(server, name);
}
