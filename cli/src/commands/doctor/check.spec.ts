import { describe, expect, it } from 'vitest';
import { fail, ok, reportTable, warn, within } from './check.ts';

describe('the doctor report', () => {
  it('prints one row per check with the fix under what went wrong, and a verdict', () => {
    const table = reportTable([ok('postgresql', 'PostgreSQL 17.2'), warn('projections', 'assets lags 120 s', 'start a projector'), fail('repository local', 'EACCES', 'make the directory writable')]);
    const lines = table.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^check\s+status\s+detail$/);
    expect(lines[1]).toMatch(/^postgresql\s+ok\s+PostgreSQL 17\.2$/);
    expect(lines[2]).toMatch(/^projections\s+WARN\s+assets lags 120 s$/);
    expect(lines[3]).toMatch(/^\s+fix: start a projector$/);
    expect(lines[5]).toMatch(/^\s+fix: make the directory writable$/);
    expect(lines.at(-1)).toBe('1 check failed.');
    expect(reportTable([ok('a', 'b'), warn('c', 'd', 'e')]).trimEnd().split('\n').at(-1)).toBe('All checks passed (1 warning).');
  });

  it('gives up on work that does not answer in time', async () => {
    await expect(within(20, new Promise(() => undefined))).rejects.toThrow(/no answer within/);
    await expect(within(1000, Promise.resolve(3))).resolves.toBe(3);
  });
});
