import { InvalidArgumentError, type Command, type CommandUnknownOpts, type OptionValues } from '@commander-js/extra-typings';
import { quiet } from './usage-errors.ts';

/** What a command gets from the command line: its options and its arguments, as commander parsed them. */
export type Parsed<A extends unknown[], O extends OptionValues> = { readonly options: O; readonly args: A };

/**
 * One `cairn` command: its description for commander (built fresh for each parse, since a
 * commander command keeps what it parsed) and what it does with what was parsed. `Ctx` is
 * what it needs opened first: the service's resources, or only the configuration.
 */
export type CommandDefinition<Ctx, R> = {
  /** The command for the program's tree; `execute` opens what it needs, runs it and prints the answer. */
  command(execute: (run: (ctx: Ctx) => Promise<R>) => Promise<void>): CommandUnknownOpts;
  /** Parses `args` exactly as the command line does, then runs: how tests and scripts call a command. */
  inProcess(ctx: Ctx, args: readonly string[]): Promise<R>;
};

export function defineCommand<Ctx, A extends unknown[], O extends OptionValues, R>(
  build: () => Command<A, O>,
  run: (ctx: Ctx, parsed: Parsed<A, O>) => Promise<R>,
): CommandDefinition<Ctx, R> {
  return {
    command(execute) {
      const command = build();
      command.action(async () => execute((ctx) => run(ctx, { options: command.opts(), args: command.processedArgs })));
      return command;
    },
    async inProcess(ctx, args) {
      const command = build();
      quiet(command);
      command.parse([...args], { from: 'user' });
      return run(ctx, { options: command.opts(), args: command.processedArgs });
    },
  };
}

/** The help's closing lines: examples an operator can copy. */
export function examples(...lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}`;
}

/** An option's text, trimmed; empty is refused as commander refuses a missing value. */
export function nonEmpty(value: string): string {
  const trimmed = value.trim();
  if (trimmed === '') throw new InvalidArgumentError('it must not be empty.');
  return trimmed;
}

/** A whole number of at least `min`, for counts and limits. */
export function wholeNumber(min: number): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed) || parsed < min) throw new InvalidArgumentError(`it must be a whole number of at least ${min}.`);
    return parsed;
  };
}

/** A repeatable option's values, in order. */
export const collect = (value: string, previous: string[]): string[] => [...previous, value];
