import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCairn, runProcess } from '../support/processes.ts';

/** Whether bash is here to source the script in (Debian has it; a slim image may not). */
function hasBash(): boolean {
  try {
    execFileSync('bash', ['-c', 'type compgen complete'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Issue 26: `cairn completion bash` prints a script generated from the command tree, and
 * bash completes with it: the real commands of `cairn pro`, the subcommands of
 * `cairn projections re`, the options of `cairn users create`.
 */
describe('cairn completion', () => {
  let dir: string;
  let script: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cairn-completion-'));
    const res = await runCairn(['completion', 'bash'], {});
    expect([res.code, res.stderr]).toEqual([0, '']);
    script = res.stdout;
    await writeFile(path.join(dir, 'cairn.bash'), script);
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('prints a bash script that offers the real commands and options', () => {
    expect(script).toContain('complete -F _cairn cairn');
    for (const word of ['serve', 'projections', 'allocations', 'completion']) expect(script).toMatch(new RegExp(`^ {4}''\\) echo '[^']*\\b${word}\\b`, 'm'));
    expect(script).toMatch(/'projections'\) echo 'list status rebuild resume verify /);
    expect(script).toMatch(/'tokens issue'\) echo '--user --scopes --ttl /);
  });

  it('refuses a shell it does not know with exit 2 and the choices', async () => {
    const res = await runCairn(['completion', 'tcsh'], {});
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^cairn: .*tcsh.*bash, zsh, fish; see cairn completion --help\n$/);
  });

  it.skipIf(!hasBash())('completes in bash: cairn pro, cairn projections re, cairn users create --', async () => {
    // The completion function as bash calls it: the words so far and the index of the one being completed.
    const complete = async (...words: string[]) => {
      const line = `source ${JSON.stringify(path.join(dir, 'cairn.bash'))}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _cairn; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const res = await runProcess('bash', ['--norc', '--noprofile', '-c', line], {});
      expect([res.code, res.stderr]).toEqual([0, '']);
      return res.stdout.split('\n').filter(Boolean);
    };
    expect(await complete('cairn', 'pro')).toEqual(['projections']);
    expect(await complete('cairn', 'projections', 're')).toEqual(['rebuild', 'resume']);
    expect(await complete('cairn', 'users', 'create', '--email', 'ada@example.org', '--')).toEqual(['--email', '--name', '--password', '--system-admin', '--help']);
    // A word that names no command (an argument) is passed over: the command's options are offered.
    expect(await complete('cairn', 'tokens', 'revoke', 'some-token', '--')).toEqual(['--digest', '--help']);
    // `complete -p` shows the function is registered for the command.
    const registered = await runProcess('bash', ['--norc', '--noprofile', '-c', `source ${JSON.stringify(path.join(dir, 'cairn.bash'))}; complete -p cairn`], {});
    expect(registered.stdout.trim()).toBe('complete -F _cairn cairn');
  });
});
