import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const cairnBin = path.join(repoRoot, 'cli/bin/cairn.js');

export type CliResult = { code: number | null; stdout: string; stderr: string };

/** Runs a command to its end, with the given environment added, and answers its exit code and output. */
export function runProcess(command: string, args: readonly string[], env: Record<string, string>, cwd = repoRoot): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs the installed `cairn` command as an operator would, with the given environment. */
export function runCairn(args: readonly string[], env: Record<string, string>): Promise<CliResult> {
  return runProcess(process.execPath, [cairnBin, ...args], env);
}

export type ServerProcess = { readonly child: ChildProcess; readonly output: () => string; stop(): Promise<void> };

/** Starts `cairn serve` and resolves once it prints that it runs. */
export function startCairn(args: readonly string[], env: Record<string, string>, timeoutMs = 90_000): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cairnBin, 'serve', ...args], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cairn serve did not start in time:\n${output}`));
    }, timeoutMs);
    const stop = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      });
    const onData = (d: Buffer) => {
      output += d.toString();
      if (/Cairn \(\w+\) (listening on|running)/.test(output)) {
        clearTimeout(timer);
        resolve({ child, output: () => output, stop });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`cairn serve exited with ${code}:\n${output}`));
    });
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
