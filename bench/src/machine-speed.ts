import pg from 'pg';
import { serverTransport, serverUrl } from './scratch-database.ts';

/**
 * Two fixed pieces of work, timed, printed at the top of every run: this machine's speed
 * varies from day to day (the same code and database have measured three times apart), so
 * figures from different days compare only beside these.
 */
export async function machineSpeed(): Promise<string> {
  const started = performance.now();
  let sum = 0;
  for (let i = 0; i < 100_000_000; i += 1) sum += i % 7;
  const nodeMs = performance.now() - started;
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const at = performance.now();
    await client.query('do $$ declare s bigint := 0; begin for i in 1..10000000 loop s := s + i; end loop; end $$');
    const pgMs = performance.now() - at;
    return `machine speed: a Node loop of 1e8 steps ${Math.round(nodeMs)} ms, a PL/pgSQL loop of 1e7 additions ${Math.round(pgMs)} ms (lower is faster; checksum ${sum % 10}); PostgreSQL through ${serverTransport()}`;
  } finally {
    await client.end();
  }
}
