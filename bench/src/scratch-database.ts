import { existsSync } from 'node:fs';
import pg from 'pg';

/** The local server's Unix socket, where Debian's PostgreSQL keeps it. */
const localSocket = '/var/run/postgresql';

/**
 * The bench server: BENCH_DATABASE_URL, else the local PostgreSQL through its Unix socket
 * when it has one (as the README recommends for a server on the same machine: over
 * loopback TCP, `writev` took 40 % of the service's busy time, docs/benchmarks.md), else
 * 127.0.0.1.
 */
export let serverUrl = process.env['BENCH_DATABASE_URL'] ?? (existsSync(`${localSocket}/.s.PGSQL.5432`) ? `postgres://postgres@127.0.0.1:5432/postgres?host=${localSocket}` : 'postgres://postgres@127.0.0.1:5432/postgres');

/** How the bench reaches its server, for the run's heading. */
export const serverTransport = () => (new URL(serverUrl).searchParams.get('host')?.startsWith('/') ? `Unix socket ${new URL(serverUrl).searchParams.get('host')}` : `TCP ${new URL(serverUrl).host}`);

/** Points the benchmarks' databases at another server (the standbys benchmark's own primary); gives back the previous one. */
export function useBenchServer(url: string): string {
  const previous = serverUrl;
  serverUrl = url;
  return previous;
}

/** The URL of database `name` on the bench server. */
export function databaseUrl(name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A database of its own on the local server for one benchmark, dropped afterwards. */
export async function withScratchDatabase<T>(label: string, work: (url: string) => Promise<T>): Promise<T> {
  const name = `cairn_bench_${label}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  try {
    return await work(databaseUrl(name));
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

export async function timed(label: string, count: number, unit: string, work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  const rate = count / seconds;
  console.log(`${label.padEnd(52)} ${count.toString().padStart(7)} ${unit.padEnd(8)} ${seconds.toFixed(2).padStart(7)} s  ${Math.round(rate).toString().padStart(8)} ${unit}/s`);
  return rate;
}
