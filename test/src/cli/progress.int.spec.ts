import { mkdtemp, readFile, rm } from 'node:fs/promises';
import pg from 'pg';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { usersCreate } from '@cairn/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicUrl, startHarness, type Harness } from '../support/harness.ts';
import { runCairn, type CliResult } from '../support/processes.ts';

/**
 * Issue 26: long work shows its progress on stderr only on a terminal. Run as a script runs
 * it (stderr a pipe), each command prints nothing on stderr and its one JSON object on
 * stdout (DECISIONS §7).
 */
describe('progress of long commands off a terminal', () => {
  let h: Harness;
  let env: Record<string, string>;
  let dir: string;
  beforeAll(async () => {
    h = await startHarness('all');
    env = { DATABASE_URL: h.databaseUrl, CAIRN_PUBLIC_URL: publicUrl, CAIRN_LOG_LEVEL: 'silent' };
    dir = await mkdtemp(path.join(tmpdir(), 'cairn-progress-'));
    for (let i = 0; i < 3; i += 1) await usersCreate(h.resources, ['--email', `progress${i}@example.org`, '--name', `Progress ${i}`]);
  });
  afterAll(async () => {
    await h.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** stdout is one JSON object; stderr is empty, or (a failed check, exit 1) the one line that says why. */
  const oneObject = (run: CliResult): Record<string, unknown> => {
    expect(run.stderr).toEqual(run.code === 0 ? '' : expect.stringMatching(/^cairn: [^\r\n]*\n$/));
    expect(run.stdout.endsWith('\n')).toBe(true);
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(1);
    return JSON.parse(run.stdout) as Record<string, unknown>;
  };

  it('audit export, projections verify and doctor print nothing on stderr and one JSON object on stdout', async () => {
    const file = path.join(dir, 'audit.jsonl');
    const exported = await runCairn(['audit', 'export', '--out', file], env);
    expect(exported.code).toBe(0);
    expect(oneObject(exported)).toMatchObject({ file, events: expect.any(Number) });
    expect((await readFile(file, 'utf8')).trimEnd().split('\n').length).toBe(oneObject(exported)['events']);

    const verified = await runCairn(['projections', 'verify', 'identity'], env);
    expect(verified.code).toBe(0);
    expect(oneObject(verified)).toMatchObject({ verified: [{ projection: 'identity', differences: 0 }] });

    const doctor = await runCairn(['doctor', '--json'], env);
    // Here a check or two may fail (no repository was created): the doctor then exits 1 with its one line.
    expect([0, 1]).toContain(doctor.code);
    expect(oneObject(doctor)).toMatchObject({ checks: expect.any(Array) });
  }, 90_000);

  it('audit export writes every event committed before it began, also those a transaction open then still hides', async () => {
    // A transaction older than the next events, open while they commit and the export starts: the log shows them only once it ends.
    const blocker = new pg.Client({ connectionString: h.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('begin');
      await blocker.query('select txid_current()');
      await usersCreate(h.resources, ['--email', 'late@example.org', '--name', 'Late']);
      const file = path.join(dir, 'audit-late.jsonl');
      const running = runCairn(['audit', 'export', '--out', file], env);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await blocker.query('commit');
      const exported = await running;
      expect(exported.code).toBe(0);
      const { rows } = await h.resources.pool.query<{ n: number }>('select count(*)::integer as n from events');
      const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
      expect(lines).toHaveLength(rows[0]?.n ?? -1);
      expect(lines.some((line) => line.includes('late@example.org'))).toBe(true);
    } finally {
      await blocker.end();
    }
  }, 90_000);
});
