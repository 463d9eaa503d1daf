import { randomBytes } from 'node:crypto';
import { createPool, migrate } from '@cairn/platform';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string;
    serverUrl: string;
    runPrefix: string;
  }
}

/** The server the tests use: TEST_DATABASE_URL, else the local PostgreSQL of README "Tests". */
export const serverUrl = process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function databaseUrl(server: string, database: string): string {
  const url = new URL(server);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * Once per run: a template database with every migration applied. Each test file then
 * clones it (CREATE DATABASE ... TEMPLATE), so files run in parallel and start clean.
 */
export default async function setup(project: TestProject) {
  const runPrefix = `cairn_t${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const template = `${runPrefix}_tpl`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${template}`);
  const pool = createPool(databaseUrl(serverUrl, template), 2);
  await migrate(pool);
  await pool.end();
  await admin.end();
  project.provide('templateDatabase', template);
  project.provide('serverUrl', serverUrl);
  project.provide('runPrefix', runPrefix);

  return async () => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    const { rows } = await client.query<{ datname: string }>('select datname from pg_database where datname like $1', [`${runPrefix}%`]);
    for (const { datname } of rows) {
      await client.query(`drop database if exists ${datname} with (force)`).catch(() => undefined);
    }
    await client.end();
  };
}
