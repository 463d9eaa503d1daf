import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type PeerLine = Record<string, unknown> & { readonly test?: string };

const emmettScript = process.env['BENCH_EMMETT_SCRIPT'] ?? '/work/shared/peers/run-emmett.sh';
const cairnScript = fileURLToPath(new URL('./cairn-peer.ts', import.meta.url));

/** Runs a command, keeps the JSON lines of its stdout; stderr goes to ours only on failure. */
function jsonLines(command: string, args: readonly string[]): Promise<PeerLine[]> {
  return new Promise((resolve, reject) => {
    // The same node for both peers: the one `npm run` chose for us.
    const env = { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env['PATH'] ?? ''}` };
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
    child.once('exit', (code) => {
      const lines = stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as PeerLine);
      if (code !== 0) reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve(lines);
    });
  });
}

export const runEmmett = (seconds: number) => jsonLines('bash', [emmettScript, String(seconds)]);

export const runCairn = (seconds: number, readLog: number) =>
  jsonLines(process.execPath, ['--import', 'tsx', cairnScript, '--duration', String(seconds), '--read-log', String(readLog)]);

/** A line's identity across peers: the phase and its writers / events per append. */
export function keyOf(line: PeerLine): string {
  const test = String(line.test ?? '')
    .replace(/_readMessagesBatch$|_readAll$/, '')
    .replace(/^delivery_(consumer_reactor|readAll_follower)$/, 'delivery');
  const writers = line['concurrency'] ?? line['writers'] ?? '';
  const perAppend = line['events_per_append'] ?? '';
  return `${test}|${String(writers)}|${String(perAppend)}`;
}
