import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
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

/**
 * A free port below the kernel's ephemeral range. A port from that range (what listening on
 * port 0 gives) can be taken as the source port of a parallel test's outgoing connection
 * between choosing it and binding it, and the server then fails to start.
 */
export async function freePort(): Promise<number> {
  const range = await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').catch(() => '32768 60999');
  const low = Number(range.trim().split(/\s+/)[0]) || 32768;
  const floor = Math.min(20_000, low - 1_000);
  for (;;) {
    const port = floor + Math.floor(Math.random() * (low - floor));
    if (await canListen(port)) return port;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
