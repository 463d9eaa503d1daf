import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { describe, expect, it } from 'vitest';
import { completionScript, completionShells } from './completion.ts';
import { buildProgram, type Runners } from './program.ts';

// Generating a script opens nothing: a runner that is called fails the test.
const never = async () => {
  throw new Error('completion opened something');
};
const program = buildProgram({ resources: never, env: never, publicUrl: never, process: never } satisfies Runners);

function everyCommand(command: CommandUnknownOpts, path: readonly string[] = []): { path: string[]; command: CommandUnknownOpts }[] {
  return command.commands.flatMap((sub) => {
    const here = [...path, sub.name()];
    return [{ path: here, command: sub }, ...everyCommand(sub, here)];
  });
}

describe('cairn completion', () => {
  const commands = everyCommand(program);

  it.each(completionShells)('%s: names every command path and every option of the tree', (shell) => {
    const script = completionScript(shell, program);
    expect(commands.length).toBeGreaterThan(30);
    for (const { path, command } of commands) {
      // bash and zsh branch on the whole path; fish on each word of it.
      if (shell === 'fish') for (const word of path) expect(script, path.join(' ')).toContain(`'${word}'`);
      else expect(script, path.join(' ')).toContain(`'${path.join(' ')}')`);
      for (const option of command.options) expect(script, `${path.join(' ')} ${option.flags}`).toContain(shell === 'fish' ? `-l ${option.long?.slice(2) ?? ''}` : (option.long ?? ''));
    }
  });

  it('offers a group’s subcommands after the group, and a command’s options after it (bash)', () => {
    const script = completionScript('bash', program);
    expect(script).toMatch(/'projections'\) echo 'list status rebuild resume verify --help -h' ;;/);
    expect(script).toMatch(/'users create'\) echo '--email --name --password --system-admin --help -h' ;;/);
    expect(script).toContain('complete -F _cairn cairn');
  });

  it('quotes descriptions for the shell (zsh and fish carry them)', () => {
    // "the user's display name": a quote inside a single-quoted word.
    expect(completionScript('zsh', program)).toContain(`'--name:the user'\\''s display name (required)'`);
    expect(completionScript('fish', program)).toMatch(/-l name -d 'the user'\\''s display name \(required\)'/);
  });
});
