import { existsSync } from 'node:fs';
import path from 'node:path';

/** Debian's Chromium, which the browser tests drive. */
export const chromiumPath = '/usr/bin/chromium';

/** Whether the browser tests run here: Chromium is installed and not switched off (.ci/run sets CAIRN_SKIP_BROWSER_TESTS when it cannot install it). */
export const browserTestsRun = () => !process.env['CAIRN_SKIP_BROWSER_TESTS'] && existsSync(chromiumPath);

/** The nginx binary the split-topology test runs as its gateway, or null. */
export function findNginx(): string | null {
  const onPath = (process.env['PATH'] ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, 'nginx'));
  return ['/usr/sbin/nginx', ...onPath].find((candidate) => existsSync(candidate)) ?? null;
}

/** Whether the split-topology test runs here. */
export const nginxTestsRun = () => !process.env['CAIRN_SKIP_NGINX_TESTS'] && findNginx() !== null;
