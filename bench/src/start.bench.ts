import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { withScratchDatabase } from './scratch-database.ts';

const cairnBin = path.resolve(import.meta.dirname, '../../cli/bin/cairn.js');

/** One run of a child process, from spawn to its exit (or to `ready`), in milliseconds. */
function once(args: readonly string[], env: Record<string, string>, ready?: (url: string) => Promise<boolean>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout.resume();
    child.on('error', reject);
    if (!ready) {
      child.on('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`${args.join(' ')} exited ${code}: ${err}`))));
      return;
    }
    // A server: poll until it answers, then stop it and wait for it to be gone.
    const url = `http://127.0.0.1:${env['PORT']}/healthz`;
    const poll = async () => {
      while (child.exitCode === null) {
        if (await ready(url)) {
          const took = performance.now() - started;
          child.once('exit', () => resolve(took));
          child.kill('SIGTERM');
          return;
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      reject(new Error(`serve exited ${child.exitCode}: ${err}`));
    };
    void poll();
  });
}

const answers = async (url: string) => (await fetch(url).catch(() => null))?.status === 200;

const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;

async function measure(label: string, runs: number, run: () => Promise<number>, baseline?: number): Promise<number> {
  await run(); // warm the file system cache
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) times.push(await run());
  times.sort((a, b) => a - b);
  const median = quantile(times, 0.5);
  const beside = baseline === undefined ? '' : `  (${(median - baseline).toFixed(0)} ms over node -e 0)`;
  console.log(`${label.padEnd(40)} ${runs.toString().padStart(3)} runs  median ${median.toFixed(0).padStart(5)} ms  p90 ${quantile(times, 0.9).toFixed(0).padStart(5)} ms${beside}`);
  return median;
}

/**
 * `npm run bench -- start`: how long the command line and the server take to start, each
 * beside `node -e 0` (issue 26: --help under 300 ms, tokens issue under 700 ms, serve to
 * its first 200 under 1.5 s on an existing database).
 */
export async function startBenchmark(scale: number): Promise<void> {
  const runs = Math.max(3, Math.round(20 * scale));
  console.log('\nStart times (spawned as npm does: node cli/bin/cairn.js, Node strips the types)');
  const base = await measure('node -e 0', runs, () => once(['-e', '0'], {}));
  await measure('cairn --help', runs, () => once([cairnBin, '--help'], {}), base);
  await measure('cairn --version', runs, () => once([cairnBin, '--version'], {}), base);
  const dataDir = await mkdtemp(path.join(tmpdir(), 'cairn-bench-start-'));
  try {
    await withScratchDatabase('start', async (url) => {
      const env = { DATABASE_URL: url, CAIRN_DATA_DIR: dataDir, CAIRN_LOG_LEVEL: 'warn' };
      // The database exists and is migrated before anything is measured, as on a second start.
      await once([cairnBin, 'users', 'create', '--email', 'bench@example.org', '--name', 'Bench'], env);
      await measure('cairn tokens issue (PostgreSQL)', runs, () => once([cairnBin, 'tokens', 'issue', '--user', 'bench@example.org'], env), base);
      await measure('cairn serve to the first 200 /healthz', Math.max(3, Math.round(runs / 2)), () => once([cairnBin, 'serve', '--port', '18931'], { ...env, PORT: '18931' }, answers), base);
    });
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
