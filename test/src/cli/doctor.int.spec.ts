import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRepository, doctor, PrintedOutput, ReportedFailure } from '@cairn/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicUrl, startHarness, type Harness } from '../support/harness.ts';
import { runCairn } from '../support/processes.ts';

type Report = { ok: boolean; checks: { check: string; status: string; detail: string; fix: string | null }[] };

const reportOf = (result: unknown): Report => {
  if (result instanceof PrintedOutput || result === null || typeof result !== 'object') throw new Error('expected the JSON report');
  return result as Report;
};

describe('cairn doctor', () => {
  let h: Harness;
  let env: Record<string, string>;
  beforeAll(async () => {
    h = await startHarness('all');
    env = { DATABASE_URL: h.databaseUrl, CAIRN_PUBLIC_URL: publicUrl, CAIRN_LOG_LEVEL: 'silent', REDIS_URL: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379' };
    await createRepository(h.resources, 'local', { kind: 'fs', path: await mkdtemp(path.join(tmpdir(), 'cairn-doctor-')) });
  });
  afterAll(async () => h.close());

  it('checks the configuration, PostgreSQL, the read models, Redis and the queue, each repository and the OAuth server', async () => {
    const report = reportOf(await doctor(env, ['--json']));
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => c.check)).toEqual(['configuration', 'postgresql', 'migrations', 'read models', 'redis', 'job queue', 'repository local', 'oauth issuer', 'oauth keys']);
    expect(report.checks.filter((c) => c.status === 'fail')).toEqual([]);
    expect(report.checks.find((c) => c.check === 'postgresql')?.detail).toMatch(/^PostgreSQL \d+/);
    expect(report.checks.find((c) => c.check === 'migrations')?.detail).toMatch(/^all \d+ applied/);
    expect(report.checks.find((c) => c.check === 'repository local')?.detail).toBe('fs: wrote, read back and deleted a probe object');
    expect(report.checks.find((c) => c.check === 'job queue')?.detail).toMatch(/^cairn-[0-9a-f]{16}: \d+ waiting/);
    // Plain HTTP on a host other than this one: tokens would travel in clear.
    expect(report.checks.find((c) => c.check === 'oauth issuer')).toMatchObject({ status: 'warn', fix: expect.stringContaining('https://') });
  }, 60_000);

  it('fails on a repository it cannot write, says what to fix, and exits 1 from the command line', async () => {
    await createRepository(h.resources, 'broken', { kind: 'fs', path: '/dev/null/cairn' });
    let failure: unknown;
    await doctor(env, ['--json']).catch((error: unknown) => (failure = error));
    expect(failure).toBeInstanceOf(ReportedFailure);
    const report = reportOf((failure as ReportedFailure).result);
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.check === 'repository broken')).toMatchObject({ status: 'fail', fix: expect.stringContaining('directory') });
    expect(report.checks.find((c) => c.check === 'repository local')?.status).toBe('ok');

    const run = await runCairn(['doctor'], { ...env, CAIRN_LOG_LEVEL: 'warn' });
    expect(run.code).toBe(1);
    expect(reportOf(JSON.parse(run.stdout)).ok).toBe(false);
    expect(run.stderr.split('\n').filter((l) => l.startsWith('cairn:'))).toEqual(['cairn: 1 check failed: repository broken']);
  }, 60_000);

  it('reports a configuration it cannot read, and a Redis that does not answer, as failed checks', async () => {
    const badConfig = await doctor({ ...env, PORT: 'eighty' }, ['--json']).catch((error: unknown) => error);
    const configReport = reportOf((badConfig as ReportedFailure).result);
    expect(configReport.checks[0]).toMatchObject({ check: 'configuration', status: 'fail', detail: expect.stringContaining('PORT') });

    const noRedis = await doctor({ ...env, REDIS_URL: 'redis://127.0.0.1:1' }, ['--json', '--timeout', '2']).catch((error: unknown) => error);
    const redisReport = reportOf((noRedis as ReportedFailure).result);
    expect(redisReport.checks.find((c) => c.check === 'redis')).toMatchObject({ status: 'fail', fix: expect.stringContaining('REDIS_URL') });
  }, 60_000);
});
