import { DomainError } from '@cairn/domain';
import { ConfigError, createLogger, loadConfig } from '@cairn/platform';
import { parseOptions, UsageError } from './commands/args.ts';
import { clientsCreate } from './commands/clients.command.ts';
import { login } from './commands/login.command.ts';
import { orgsAddMember, orgsCreate } from './commands/orgs.command.ts';
import { repositoriesCreate, repositoriesList } from './commands/repositories.command.ts';
import { projectionsList, projectionsRebuildCommand, projectionsResume, projectionsStatus, projectionsVerify } from './commands/projections.command.ts';
import { ReportedFailure } from './commands/reported-failure.ts';
import { PrintedOutput } from './commands/printed-output.ts';
import { auditAsOf, auditExport, auditLog, auditVerify } from './commands/audit.command.ts';
import { tokensIssue } from './commands/tokens.command.ts';
import { usersCreate } from './commands/users.command.ts';
import { openResources, type Resources } from './runtime/resources.ts';
import { StartError } from './runtime/start-errors.ts';
import { roles, serve, type Role } from './server/serve.ts';

const usage = `usage: cairn <command>
  serve [--role all|command|query|projector|worker] [--port PORT]
  migrate
  users create --email E --name N [--password P] [--system-admin]
  orgs create --name N [--country CC]
  orgs add-member --org ORG_ID --user USER_ID_OR_EMAIL [--role admin|member]
  repositories create --name N --kind fs --path DIR
  repositories create --name N --kind s3 --endpoint URL --bucket B [--prefix P] [--region R]
  repositories list
  clients create --name N [--redirect-uri URI ...] [--public]
  tokens issue --user USER_ID_OR_EMAIL [--scopes "read write"] [--ttl SECONDS]
  projections list | status | rebuild [NAME ...] | resume NAME ... | verify [NAME ...]
  audit log --entity ID | --actor USER [--from T] [--to T] [--type T ...] [--limit N] [--json]
  audit as-of --entity ID --at TIME
  audit export [--from T] [--to T] [--out FILE]
  audit verify FILE
  login --device [--url URL] [--scopes "openid offline_access read write"] [--credentials-file FILE]`;

type Handler = (resources: Resources, args: readonly string[]) => Promise<unknown>;

const commands: Record<string, Handler> = {
  migrate: async () => ({ migrated: true }),
  'users create': usersCreate,
  'orgs create': orgsCreate,
  'orgs add-member': orgsAddMember,
  'repositories create': repositoriesCreate,
  'repositories list': (resources) => repositoriesList(resources),
  'clients create': clientsCreate,
  'tokens issue': tokensIssue,
  'projections list': (resources) => projectionsList(resources),
  'projections status': (resources) => projectionsStatus(resources),
  'projections rebuild': (resources, args) => projectionsRebuildCommand(resources, args),
  'projections resume': (resources, args) => projectionsResume(resources, args),
  'projections verify': (resources, args) => projectionsVerify(resources, args),
  'audit log': auditLog,
  'audit as-of': auditAsOf,
  'audit export': auditExport,
  'audit verify': auditVerify,
};

/** Prints one JSON object on stdout; a failure is one line on stderr and a non-zero exit. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    if (argv[0] === 'serve') return await runServer(argv.slice(1));
    if (argv[0] === 'login') {
      // A client of the service: it needs no database, only the service's address.
      const result = await login(argv.slice(1), loadConfig().publicUrl);
      process.stdout.write(`${JSON.stringify(result)}\n`);
      return 0;
    }
    // Only the table's own entries are commands (`cairn toString` is not Object.prototype's).
    const known = (name: string) => (Object.hasOwn(commands, name) ? commands[name] : undefined);
    const key2 = argv.slice(0, 2).join(' ');
    const [key, rest] = known(key2) ? [key2, argv.slice(2)] : [argv[0] ?? '', argv.slice(1)];
    const command = known(key);
    if (!command) {
      if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help') {
        process.stdout.write(`${usage}\n`);
        return argv.length === 0 ? 2 : 0;
      }
      throw new UsageError(`unknown command "${argv.join(' ')}"; see cairn --help`);
    }
    const config = loadConfig();
    const resources = await openResources(config, { logger: createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel), poolSize: 4, queryTimeout: false });
    try {
      const result = await command(resources, rest);
      process.stdout.write(result instanceof PrintedOutput ? result.text : `${JSON.stringify(result)}\n`);
      return 0;
    } finally {
      await resources.close();
    }
  } catch (error) {
    // A check that found something prints what it found, as any answer, then fails.
    if (error instanceof ReportedFailure) process.stdout.write(`${JSON.stringify(error.result)}\n`);
    process.stderr.write(`cairn: ${describe(error)}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
}

function describe(error: unknown): string {
  if (error instanceof UsageError || error instanceof ConfigError || error instanceof StartError) return error.message;
  if (error instanceof DomainError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message.split('\n')[0] ?? error.name : String(error);
}

async function runServer(args: readonly string[]): Promise<number> {
  const { values } = parseOptions(args, { role: { type: 'string' }, port: { type: 'string' } });
  const role = (values.role ?? 'all') as Role;
  if (!roles.includes(role)) throw new UsageError(`--role must be one of ${roles.join(', ')}`);
  const config = loadConfig(values.port !== undefined ? { ...process.env, PORT: String(values.port) } : process.env);
  const resources = await openResources(config);
  // A start that fails after the database is up (the HTTP port taken) stops what it started.
  const running = await serve(resources, role).catch(async (error: unknown) => {
    await resources.close();
    throw error;
  });
  if (running.url) process.stdout.write(`Cairn (${role}) listening on ${running.url}\n`);
  else process.stdout.write(`Cairn (${role}) running\n`);

  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await running.stop();
  await resources.close();
  return 0;
}
