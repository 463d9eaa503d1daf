import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import cliPackage from '../../package.json' with { type: 'json' };
import { allocationsCreateCommand, allocationsDefaultCommand, allocationsListCommand } from '../commands/allocations.command.ts';
import { auditAsOfCommand, auditExportCommand, auditLogCommand, auditVerifyCommand } from '../commands/audit.command.ts';
import { clientsListCommand, clientsRevokeCommand } from '../commands/clients-manage.command.ts';
import { clientsCreateCommand } from '../commands/clients.command.ts';
import { completionCommand } from '../commands/completion.command.ts';
import { doctorCommand } from '../commands/doctor.command.ts';
import { loginCommand } from '../commands/login.command.ts';
import { migrateCommand } from '../commands/migrate.command.ts';
import { orgsAddMemberCommand, orgsCreateCommand } from '../commands/orgs.command.ts';
import { projectionsListCommand, projectionsRebuildDefinition, projectionsResumeCommand, projectionsStatusCommand, projectionsVerifyCommand } from '../commands/projections.command.ts';
import { repositoriesCreateCommand, repositoriesListCommand } from '../commands/repositories.command.ts';
import { serveCommand } from '../commands/serve.command.ts';
import { tokensRevokeCommand } from '../commands/tokens-revoke.command.ts';
import { tokensIssueCommand } from '../commands/tokens.command.ts';
import { usersActivateCommand, usersDeactivateCommand, usersListCommand } from '../commands/users-access.command.ts';
import { usersCreateCommand } from '../commands/users.command.ts';
import type { Resources } from '../runtime/resources.ts';
import { examples } from './define-command.ts';

/** Runs a command with what it needs opened first, prints its answer, closes what it opened. */
export type Runner<Ctx> = <R>(run: (ctx: Ctx) => Promise<R>) => Promise<void>;

export type Runners = {
  /** The database, event store, OAuth server...: every command that reads or writes the service's state. */
  readonly resources: Runner<Resources>;
  /** The environment alone: commands that must answer when the configuration or the database is broken (doctor). */
  readonly env: Runner<NodeJS.ProcessEnv>;
  /** The service's public address: commands that are clients of a running service (login). */
  readonly publicUrl: Runner<string>;
  /** The environment, and nothing printed for it: `serve` prints its own line. */
  readonly process: Runner<NodeJS.ProcessEnv>;
};

export const cairnVersion = cliPackage.version;

function group(name: string, summary: string, commands: readonly CommandUnknownOpts[]): CommandUnknownOpts {
  const command = new Command(name).summary(summary).description(`${summary[0]?.toUpperCase() ?? ''}${summary.slice(1)}.`);
  for (const sub of commands) command.addCommand(sub);
  return command;
}

/**
 * The whole `cairn` command line (DECISIONS.md 7), on commander: every command and
 * subcommand has --help with a one-line summary, its options with their defaults, and
 * examples; a mistyped name gets the nearest known one.
 */
export function buildProgram(runners: Runners): CommandUnknownOpts {
  const { resources } = runners;
  const program = new Command('cairn')
    .description(
      "Cairn's operator command line. It reads the same configuration as the server (environment variables, README: Configure) and works beside a running server. Each command prints one JSON object on stdout and exits 0, or prints one line on stderr and exits 2 (usage) or 1 (anything else).",
    )
    .version(cairnVersion, '-V, --version', 'print the version of cairn')
    .addHelpText(
      'after',
      `${examples('cairn serve', 'cairn users create --email ada@example.org --name "Ada Lovelace" --system-admin', 'cairn tokens issue --user ada@example.org', 'cairn doctor', 'cairn users create --help')}\n\nShell completion: source <(cairn completion bash), or zsh or fish (cairn completion --help).`,
    );
  program.addCommand(serveCommand.command(runners.process));
  program.addCommand(migrateCommand.command(resources));
  program.addCommand(doctorCommand.command(runners.env));
  program.addCommand(group('users', 'manage users', [usersCreateCommand, usersListCommand, usersDeactivateCommand, usersActivateCommand].map((c) => c.command(resources))));
  program.addCommand(group('orgs', 'manage organizations and their members', [orgsCreateCommand, orgsAddMemberCommand].map((c) => c.command(resources))));
  program.addCommand(group('repositories', 'manage storage repositories', [repositoriesCreateCommand, repositoriesListCommand].map((c) => c.command(resources))));
  program.addCommand(group('allocations', 'grant and list storage allocations', [allocationsCreateCommand, allocationsListCommand, allocationsDefaultCommand].map((c) => c.command(resources))));
  program.addCommand(group('clients', 'manage OAuth clients', [clientsCreateCommand, clientsListCommand, clientsRevokeCommand].map((c) => c.command(resources))));
  program.addCommand(group('tokens', 'issue and revoke access tokens', [tokensIssueCommand, tokensRevokeCommand].map((c) => c.command(resources))));
  program.addCommand(
    group('projections', 'inspect, rebuild and verify the read models', [projectionsListCommand, projectionsStatusCommand, projectionsRebuildDefinition, projectionsResumeCommand, projectionsVerifyCommand].map((c) => c.command(resources))),
  );
  program.addCommand(group('audit', 'read, export and verify the audit log', [auditLogCommand, auditAsOfCommand, auditExportCommand, auditVerifyCommand].map((c) => c.command(resources))));
  program.addCommand(loginCommand.command(runners.publicUrl));
  program.addCommand(completionCommand(runners.env, () => program));
  describeHelp(program);
  return program;
}

/** Commander's own help entries, in the words of the rest of the help. */
function describeHelp(command: CommandUnknownOpts): void {
  command.helpOption('-h, --help', 'show this help');
  if (command.commands.length > 0) command.helpCommand('help [command]', 'show the help of a command');
  for (const sub of command.commands) describeHelp(sub);
}
