import { execSync } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

export const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

export const uptime = () => {
  try {
    return execSync('uptime', { encoding: 'utf8' }).trim();
  } catch {
    return `load average: ${load()}`;
  }
};

export const commitOf = () => {
  try {
    return execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  } catch {
    return '?';
  }
};

/**
 * Runs `work` with everything it prints also kept, then appends it to
 * `bench/results/<name>-<date>.txt`: the results keep every run, interrupted ones too.
 */
export async function withOutputKept(name: string, work: () => Promise<void>): Promise<void> {
  const lines: string[] = [];
  const original = console.log;
  console.log = (...parts: unknown[]) => {
    lines.push(parts.map(String).join(' '));
    original(...parts);
  };
  try {
    await work();
  } finally {
    console.log = original;
    const date = new Date().toISOString().slice(0, 10);
    const dir = fileURLToPath(new URL('../results/', import.meta.url));
    mkdirSync(dir, { recursive: true });
    appendFileSync(`${dir}${name}-${date}.txt`, `${lines.join('\n')}\n\n`);
    console.log(`\n(output appended to bench/results/${name}-${date}.txt)`);
  }
}
