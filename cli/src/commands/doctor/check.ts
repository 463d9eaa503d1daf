/** One line of the doctor's report: what was checked, how it went, and what to do about it. */
export type Check = {
  readonly check: string;
  readonly status: 'ok' | 'warn' | 'fail' | 'skipped';
  readonly detail: string;
  /** What to change; null when nothing needs doing. */
  readonly fix: string | null;
};

export const ok = (check: string, detail: string): Check => ({ check, status: 'ok', detail, fix: null });
export const warn = (check: string, detail: string, fix: string): Check => ({ check, status: 'warn', detail, fix });
export const fail = (check: string, detail: string, fix: string): Check => ({ check, status: 'fail', detail, fix });
export const skipped = (check: string, detail: string): Check => ({ check, status: 'skipped', detail, fix: null });

export const messageOf = (error: unknown) => (error instanceof Error ? (error.message.split('\n')[0] ?? error.name) : String(error));

/** A check that gives up, and fails, after `ms` (a repository or Redis that never answers). */
export async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A check as the doctor prints it on stderr while it runs, on a terminal (`ok    postgresql: PostgreSQL 17.2`). */
export const checkLine = (c: Check): string => `${{ ok: 'ok', warn: 'WARN', fail: 'FAIL', skipped: '-' }[c.status].padEnd(5)} ${c.check}: ${c.detail}`;

/** The report as a table for a terminal: one row per check, the fix under what failed. */
export function reportTable(checks: readonly Check[]): string {
  const mark = { ok: 'ok', warn: 'WARN', fail: 'FAIL', skipped: '-' } as const;
  const nameWidth = Math.max(5, ...checks.map((c) => c.check.length));
  const lines = [`${'check'.padEnd(nameWidth)}  status  detail`];
  for (const c of checks) {
    lines.push(`${c.check.padEnd(nameWidth)}  ${mark[c.status].padEnd(6)}  ${c.detail}`);
    if (c.fix) lines.push(`${''.padEnd(nameWidth)}          fix: ${c.fix}`);
  }
  const failed = checks.filter((c) => c.status === 'fail').length;
  const warned = checks.filter((c) => c.status === 'warn').length;
  lines.push('', failed === 0 ? `All checks passed${warned ? ` (${warned} warning${warned === 1 ? '' : 's'})` : ''}.` : `${failed} check${failed === 1 ? '' : 's'} failed.`);
  return `${lines.join('\n')}\n`;
}
