import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../main.ts';
import { buildProgram, type Runners } from './program.ts';

// Help never opens anything: a runner that is called fails the test.
const never = async () => {
  throw new Error('help opened resources');
};
const runners: Runners = { resources: never, env: never, publicUrl: never, process: never };

function everyCommand(command: CommandUnknownOpts, path: readonly string[] = []): { path: string[]; command: CommandUnknownOpts }[] {
  return command.commands.flatMap((sub) => {
    const here = [...path, sub.name()];
    return [{ path: here, command: sub }, ...everyCommand(sub, here)];
  });
}

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((text) => out.push(String(text)) > 0);
  vi.spyOn(process.stderr, 'write').mockImplementation((text) => err.push(String(text)) > 0);
  return { out: () => out.join(''), err: () => err.join('') };
}

describe('cairn --help', () => {
  afterEach(() => vi.restoreAllMocks());
  const commands = everyCommand(buildProgram(runners)).filter(({ command }) => command.name() !== 'help');

  it('covers the commands of DECISIONS.md 7 and the operator commands of issue 26', () => {
    const names = commands.map(({ path }) => path.join(' '));
    for (const expected of ['serve', 'migrate', 'doctor', 'users create', 'users list', 'users deactivate', 'users activate', 'orgs create', 'orgs add-member', 'repositories create', 'clients create', 'clients list', 'clients revoke', 'tokens issue', 'tokens revoke', 'allocations create', 'allocations list', 'allocations default', 'projections rebuild', 'audit log', 'audit as-of', 'login']) {
      expect(names).toContain(expected);
    }
  });

  it.each(commands.map(({ path, command }) => [path.join(' '), path, command] as const))('cairn %s --help prints its usage, a one-line summary, each option explained and examples, and exits 0', async (_name, path, command) => {
    const output = capture();
    expect(await main([...path, '--help'])).toBe(0);
    const help = output.out();
    expect(output.err()).toBe('');
    expect(help).toMatch(new RegExp(`^Usage: cairn ${path.join(' ')} `));
    expect(command.summary()).toMatch(/^\S.{5,100}$/);
    for (const option of command.options) expect(option.description, option.flags).toMatch(/\w{3}/);
    // Commander wraps long lines: compare with the line breaks taken out.
    const flat = help.replace(/\s+/g, ' ');
    for (const option of command.options.filter((o) => o.defaultValue !== undefined)) expect(flat).toContain(`default: ${JSON.stringify(option.defaultValue)}`);
    // Groups list their commands; each command that does something shows how to call it.
    if (command.commands.length > 0) expect(help).toMatch(/Commands:\n/);
    else expect(help).toMatch(/Examples:\n {2}\$ cairn /);
  });

  it('answers cairn --help and cairn help COMMAND on stdout with exit 0', async () => {
    const output = capture();
    expect(await main(['--help'])).toBe(0);
    expect(await main(['help', 'allocations'])).toBe(0);
    expect(output.out()).toMatch(/^Usage: cairn \[options\] \[command\]/);
    expect(output.out()).toContain('Usage: cairn allocations');
  });

  it('prints the package version', async () => {
    const output = capture();
    expect(await main(['--version'])).toBe(0);
    expect(output.out()).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

describe('a mistyped command', () => {
  afterEach(() => vi.restoreAllMocks());

  it('exits 2 with the nearest command on one line of stderr, at any depth', async () => {
    const output = capture();
    expect(await main(['usres', 'list'])).toBe(2);
    expect(await main(['allocations', 'crate'])).toBe(2);
    expect(await main(['users', 'create', '--emial', 'a@example.org', '--name', 'A'])).toBe(2);
    expect(output.out()).toBe('');
    expect(output.err().split('\n').filter(Boolean)).toEqual([
      'cairn: unknown command "usres"; did you mean "users"? see cairn --help',
      'cairn: unknown command "allocations crate"; did you mean "allocations create"? see cairn allocations --help',
      "cairn: unknown option '--emial'; did you mean --email? see cairn users create --help",
    ]);
  });

  it('names the commands of a group called without one (exit 2)', async () => {
    const output = capture();
    expect(await main(['tokens'])).toBe(2);
    expect(output.err()).toBe('cairn: name a command: issue, revoke; see cairn tokens --help\n');
  });
});
