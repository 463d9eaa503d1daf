import type { CommanderError, CommandUnknownOpts } from '@commander-js/extra-typings';
import { UsageError } from '../commands/args.ts';
import { nearest } from './suggest.ts';

/** `--help` or `--version` was answered: the program stops there with exit 0. */
export class Answered extends Error {
  override name = 'Answered';
}

/** The words of a command after `cairn` (`users create`). */
export function commandPath(command: CommandUnknownOpts): string[] {
  const names: string[] = [];
  for (let at: CommandUnknownOpts | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names;
}

const withHelp = (text: string, help: string) => (text.endsWith('?') ? `${text} ${help}` : `${text}; ${help}`);

/**
 * Commander's complaint as the one line of DECISIONS.md 7: the unknown command with the
 * nearest known one, a missing option as `--email is required`, anything else in its own
 * words; each ends by pointing at the help of the command concerned.
 */
export function usageLine(error: CommanderError, command: CommandUnknownOpts): string {
  const path = commandPath(command);
  const help = `see ${['cairn', ...path].join(' ')} --help`;
  const suggested = /\(Did you mean (.+)\?\)/.exec(error.message)?.[1];
  switch (error.code) {
    case 'commander.unknownCommand': {
      const typed = [...path, command.args[0] ?? ''].join(' ');
      const hint = suggested ? `did you mean "${[...path, suggested].join(' ')}"? ` : '';
      return `unknown command "${typed}"; ${hint}${help}`;
    }
    case 'commander.help':
      return `name a command: ${command.commands.map((c) => c.name()).join(', ')}; ${help}`;
    case 'commander.missingMandatoryOptionValue': {
      // Commander checks required options before unknown ones: a mistyped --emial is the cause to name.
      const known = command.options.flatMap((o) => (o.long ? [o.long] : []));
      const mistyped = command.args.find((arg) => arg.startsWith('--') && !known.includes(arg.split('=')[0] ?? arg));
      if (mistyped) {
        const flag = mistyped.split('=')[0] ?? mistyped;
        const hint = nearest(flag, known);
        return withHelp(`unknown option '${flag}'${hint ? `; did you mean ${hint}?` : ''}`, help);
      }
      const flag = /'(--[\w-]+)/.exec(error.message)?.[1];
      if (flag) return `${flag} is required; ${help}`;
      break;
    }
  }
  const plain = error.message
    .replace(/^error: /, '')
    .replace(/\s*\(Did you mean (.+)\?\)/, '; did you mean $1?')
    .split('\n')
    .join(' ')
    .replace(/\.$/, '');
  return withHelp(plain, help);
}

/**
 * Commander writes nothing to stderr and never exits the process: each complaint becomes a
 * UsageError (exit 2), `--help` and `--version` an Answered (exit 0), for main to report.
 * Help itself still goes to stdout. Applied to every command of the tree, since each
 * reports its own errors.
 */
export function quiet(command: CommandUnknownOpts, writeOut: (text: string) => void = () => undefined): void {
  command.exitOverride((error) => {
    // `cairn help users` answers with exit code 0 under the code of a missing subcommand.
    if (error.exitCode === 0) throw new Answered(error.code);
    throw new UsageError(usageLine(error, command));
  });
  command.configureOutput({ writeOut, writeErr: () => undefined, outputError: () => undefined });
  for (const sub of command.commands) quiet(sub, writeOut);
}
