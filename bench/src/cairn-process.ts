import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Role } from '@cairn/cli';

/** One public URL for every process of a run: bearer tokens are bound to the issuer. */
export const benchPublicUrl = 'http://127.0.0.1:8000';

/** The `cairn` command line as npm installs it (node_modules/.bin/cairn). */
const cairnBin = fileURLToPath(new URL('../../node_modules/.bin/cairn', import.meta.url));

export type CairnProcess = { readonly url: string; readonly pid: number; stop(): Promise<void> };

/**
 * `cairn serve --role ROLE --port PORT` as a child process on `databaseUrl`; resolves once
 * it logs that it started. Run with this process's node, so `npm run` picks the version.
 */
export async function startCairn(role: Role, databaseUrl: string, port: number, env: Readonly<Record<string, string>> = {}): Promise<CairnProcess> {
  const child = spawn(process.execPath, [cairnBin, 'serve', '--role', role, '--port', String(port)], {
    env: { ...process.env, DATABASE_URL: databaseUrl, CAIRN_LOG_LEVEL: 'info', PORT: String(port), CAIRN_PUBLIC_URL: benchPublicUrl, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = new Promise<void>((resolve, reject) => {
    const lines = createInterface({ input: child.stderr });
    const tail: string[] = [];
    lines.on('line', (line) => {
      tail.push(line);
      if (tail.length > 20) tail.shift();
      if (line.includes('"cairn started"')) resolve();
    });
    void exited.then((code) => reject(new Error(`cairn serve --role ${role} exited (${code}): ${tail.join('\n')}`)));
  });
  await started;
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
