import { migrationFiles } from '@cairn/platform';
import type { Resources } from '../../runtime/resources.ts';
import { projectionsList } from '../projections.command.ts';
import { fail, ok, warn, type Check } from './check.ts';

/** xid8 snapshots (`pg_current_snapshot`), which the log's readers need, came in PostgreSQL 13. */
const oldestSupported = 130000;
/** An async read model further behind than this, with events waiting, has no projector following it. */
const lagWarnSeconds = 60;

export async function postgresChecks(resources: Resources): Promise<Check[]> {
  const checks: Check[] = [];
  const { rows } = await resources.pool.query<{ version: string; number: string }>("select current_setting('server_version') as version, current_setting('server_version_num') as number");
  const version = rows[0]?.version ?? 'unknown';
  const where = resources.config.databaseUrl ? 'DATABASE_URL' : `the embedded server under ${resources.config.dataDir}`;
  checks.push(
    Number(rows[0]?.number ?? 0) >= oldestSupported
      ? ok('postgresql', `PostgreSQL ${version} (${where})`)
      : fail('postgresql', `PostgreSQL ${version} (${where})`, 'use PostgreSQL 13 or later'),
  );

  const known = await migrationFiles();
  const applied = (await resources.pool.query<{ name: string }>('select name from schema_migrations order by name')).rows.map((r) => r.name);
  const unknown = applied.filter((name) => !known.includes(name));
  const pending = known.filter((name) => !applied.includes(name));
  if (pending.length > 0) checks.push(fail('migrations', `${pending.length} not applied: ${pending.join(', ')}`, 'run cairn migrate'));
  else if (unknown.length > 0) checks.push(warn('migrations', `the database has ${unknown.length} this version does not know: ${unknown.join(', ')}`, 'run the newer Cairn that applied them'));
  else checks.push(ok('migrations', `all ${known.length} applied (latest ${known.at(-1) ?? 'none'})`));

  const { projections } = await projectionsList(resources);
  const stopped = projections.filter((p) => p.state === 'failed');
  const behind = projections.filter((p) => p.lifecycle === 'async' && (p.lag_events ?? 0) > 0 && (p.lag_seconds ?? 0) > lagWarnSeconds);
  const async = projections.filter((p) => p.lifecycle === 'async');
  if (stopped.length > 0) {
    checks.push(fail('read models', `stopped: ${stopped.map((p) => `${p.name} (${p.last_error ?? 'no error recorded'})`).join('; ')}`, 'fix the cause, then cairn projections resume NAME (docs/projections.md)'));
  } else if (behind.length > 0) {
    checks.push(warn('read models', `behind: ${behind.map((p) => `${p.name} ${p.lag_events} events, ${p.lag_seconds} s`).join('; ')}`, 'start a projector (cairn serve, or --role projector) and check its log'));
  } else {
    const lag = async.reduce((most, p) => Math.max(most, p.lag_seconds ?? 0), 0);
    checks.push(ok('read models', `${projections.length - async.length} inline, ${async.length} async${async.length ? `, at most ${lag} s behind` : ''}`));
  }
  return checks;
}
