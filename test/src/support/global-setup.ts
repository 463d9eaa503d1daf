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
/** A run's databases are named `cairn_t<start time, base 36><4 hex>_…`: when it began. */
const runStartOf = (datname: string): number | null => {
  const match = /^cairn_t([0-9a-z]+)[0-9a-f]{4}_/.exec(datname);
  return match?.[1] ? parseInt(match[1], 36) : null;
};

/** Runs older than this are over, whatever happened to them: no run lasts half as long (CI allows 90 minutes). */
const staleAfterMs = 6 * 60 * 60 * 1000;

export default async function setup(project: TestProject) {
  const runPrefix = `cairn_t${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const template = `${runPrefix}_tpl`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  // A run killed before its teardown leaves its databases behind: the next run drops them.
  const { rows: earlier } = await admin.query<{ datname: string }>("select datname from pg_database where datname like 'cairn\\_t%'");
  for (const { datname } of earlier) {
    const started = runStartOf(datname);
    if (started !== null && Date.now() - started > staleAfterMs) await admin.query(`drop database if exists ${datname} with (force)`).catch(() => undefined);
  }
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
