import { Command } from '@commander-js/extra-typings';
import type { Config } from '@cairn/platform';
import { defineCommand, examples, wholeNumber } from '../program/define-command.ts';
import type { Resources } from '../runtime/resources.ts';
import { checkLine, fail, messageOf, ok, reportTable, skipped, type Check } from './doctor/check.ts';
import { PrintedOutput } from './printed-output.ts';
import { statusLine } from './progress.ts';
import { ReportedFailure } from './reported-failure.ts';

/** What these commands run on, loaded when one runs: `cairn --help` loads none of it. */
const load = async () => ({ ...(await import('@cairn/platform')), ...(await import('../runtime/resources.ts')), ...(await import('./doctor/database.checks.ts')), ...(await import('./doctor/oauth.checks.ts')), ...(await import('./doctor/queue.checks.ts')), ...(await import('./doctor/storage.checks.ts')) });


function configurationCheck(config: Config): Check {
  const database = config.databaseUrl ? 'DATABASE_URL set' : `embedded PostgreSQL under ${config.dataDir}`;
  const events = config.eventStoreUrl ? 'EventStoreDB (EVENTSTORE_URL)' : 'events in PostgreSQL';
  return ok('configuration', `${database}; ${events}; public URL ${config.publicUrl}; jobs ${config.redisUrl ? 'on Redis' : 'in process'}`);
}

/** Every check that needs the service's resources; each area's failure is its own line, the others still run. */
async function deploymentChecks(resources: Resources, timeoutMs: number, progress: (line: string) => void, report: (checks: readonly Check[]) => void): Promise<Check[]> {
  const { oauthChecks, postgresChecks, queueChecks, repositoryChecks } = await load();
  const areas: [string, () => Promise<Check[]>][] = [
    ['postgresql', () => postgresChecks(resources)],
    ['redis', () => queueChecks(resources, timeoutMs)],
    ['repositories', () => repositoryChecks(resources, timeoutMs, progress)],
    ['oauth', () => oauthChecks(resources)],
  ];
  const checks: Check[] = [];
  for (const [area, run] of areas) {
    progress(`checking ${area}`);
    const found = await run().catch((error: unknown) => [fail(area, messageOf(error), 'see the detail; cairn doctor --json gives it whole')]);
    report(found);
    checks.push(...found);
  }
  return checks;
}

/**
 * `cairn doctor [--json] [--timeout SECONDS]`: checks a deployment from the configuration to
 * each repository and prints what to fix: a table on a terminal, JSON otherwise. Exit 1
 * when a check fails (warnings alone exit 0).
 */
export const doctorCommand = defineCommand(
  () =>
    new Command('doctor')
      .summary('check the deployment and say what to fix')
      .description(
        'Checks the configuration; PostgreSQL (version, migrations, how far the async read models lag); Redis and the job queue when REDIS_URL is set; each repository (writes, reads back and deletes a probe object); the OAuth issuer and signing key. Prints a table on a terminal, else (or with --json) {"ok", "checks": [{"check", "status", "detail", "fix"}]}. Exits 1 when a check fails. Like every command, it applies pending migrations when it opens the database.',
      )
      .option('--json', 'JSON even on a terminal', false)
      .option('--timeout <seconds>', 'how long each repository and Redis may take to answer', wholeNumber(1), 15)
      .addHelpText('after', examples('cairn doctor', 'cairn doctor --json | jq \'.checks[] | select(.status != "ok")\'')),
  async (env: NodeJS.ProcessEnv, { options }) => {
    const { ConfigError, createLogger, loadConfig, openResources } = await load();
    const table = process.stdout.isTTY === true && !options.json;
    // On a terminal, stderr shows what is being checked and one line per check as it ends.
    const status = statusLine();
    const progress = (line: string) => status.show(line);
    const report = (found: readonly Check[]) => {
      for (const c of found) status.print(checkLine(c));
    };
    const checks: Check[] = [];
    let config: Config | null = null;
    try {
      config = loadConfig(env);
      checks.push(configurationCheck(config));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      checks.push(fail('configuration', error.message, 'set the variables named as README: Configure says'));
    }
    report(checks);
    if (config) {
      progress('opening the database');
      const resources = await openResources(config, { logger: createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel), poolSize: 4, queryTimeout: false }).catch((error: unknown) => {
        const failed = [fail('postgresql', messageOf(error), config?.databaseUrl ? 'check DATABASE_URL and that PostgreSQL runs and accepts this host' : `check ${config?.dataDir} (see docs/first-start.md)`), skipped('the rest', 'needs the database')];
        report(failed);
        checks.push(...failed);
        return null;
      });
      if (resources) {
        try {
          checks.push(...(await deploymentChecks(resources, options.timeout * 1000, progress, report)));
        } finally {
          await resources.close();
        }
      }
    }
    status.done();
    const failed = checks.filter((c) => c.status === 'fail');
    const result = table ? new PrintedOutput(reportTable(checks)) : { ok: failed.length === 0, checks };
    if (failed.length > 0) throw new ReportedFailure(result, `${failed.length} check${failed.length === 1 ? '' : 's'} failed: ${failed.map((c) => c.check).join(', ')}`);
    return result;
  },
);

export const doctor = doctorCommand.inProcess;
