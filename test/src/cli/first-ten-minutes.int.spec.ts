import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, repoRoot, runProcess, startCairn, type ServerProcess } from '../support/processes.ts';

/**
 * Issue 26: README's "First ten minutes", run as it stands. The first block is `npm start`
 * (its script is `cairn serve`, started here the same way); the second runs in bash,
 * unchanged but for the server's address, and each of its steps is checked by what it printed.
 */

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The fenced `sh` blocks of one section of README.md. */
async function sectionBlocks(heading: string): Promise<string[]> {
  const readme = await readFile(path.join(repoRoot, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n${heading}\n`);
  expect(start, `README.md has no "${heading}"`).toBeGreaterThan(0);
  const rest = readme.slice(start + heading.length + 2);
  const section = rest.slice(0, rest.search(/\n## /) === -1 ? undefined : rest.search(/\n## /));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
}

/**
 * The block as steps: each starts at a `# ` comment line. A marker is printed before each
 * step and the variables after the last, so each step's output can be checked on its own.
 */
function instrumented(block: string): { script: string; steps: string[] } {
  const steps: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('# ') || steps.length === 0) steps.push(line);
    else steps[steps.length - 1] += `\n${line}`;
  }
  const script = ['set -e', ...steps.map((step, i) => `echo '@@step ${i}'\n${step}`), "echo '@@vars'", 'echo "$TOKEN"', 'echo "$ASSET"'].join('\n');
  return { script, steps };
}

const bash = (script: string, cwd: string, env: Record<string, string>) => runProcess('bash', ['-c', script], env, cwd);

/** The JSON values a step printed, one a line (`api` ends each answer with a newline). */
const jsonLines = (text: string): unknown[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{') || l.startsWith('['))
    .map((l) => JSON.parse(l) as unknown);

describe("README's first ten minutes", () => {
  const running: ServerProcess[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    for (const server of running) await server.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('starts, makes an administrator and a token, creates an asset, uploads a file, lists both and downloads it', async () => {
    const [start, second, ...more] = await sectionBlocks('## First ten minutes');
    expect(more).toEqual([]);
    expect(start?.trim()).toBe('npm ci && npm start');
    const pkg = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['start']).toBe('cairn serve');

    // Nothing configured, as on a fresh clone: a fresh data directory, and only the ports
    // moved off the defaults (so that tests running beside this one cannot collide).
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cairn-ten-minutes-data-'));
    const workDir = await mkdtemp(path.join(tmpdir(), 'cairn-ten-minutes-'));
    dirs.push(dataDir, workDir);
    // The second terminal is "in the project's directory": npx finds `cairn` there, and the
    // files the block writes land in a directory of their own instead of the repository.
    await symlink(path.join(repoRoot, 'node_modules'), path.join(workDir, 'node_modules'));
    const [port, pgPort] = [await freePort(), await freePort()];
    const env: Record<string, string> = {
      CAIRN_DATA_DIR: dataDir,
      PORT: String(port),
      CAIRN_EMBEDDED_PG_PORT: String(pgPort),
      CAIRN_LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      CAIRN_PUBLIC_URL: '',
      CAIRN_DEFAULT_ALLOCATION_BYTES: '',
      CAIRN_DEFAULT_ALLOCATION_REPOSITORY: '',
      PATH: `${path.dirname(process.execPath)}:${process.env['PATH'] ?? ''}`,
    };
    const server = await startCairn([], env, 150_000);
    running.push(server);
    const base = `http://127.0.0.1:${port}`;
    expect(server.output()).toContain(`listening on ${base}`);

    expect(second).toContain('http://127.0.0.1:8000/api');
    const { script, steps } = instrumented((second ?? '').replaceAll('http://127.0.0.1:8000', base));
    expect(steps.map((s) => s.split('\n')[0])).toEqual([
      '# an administrator, and a token for it',
      '# an asset',
      "# a file, uploaded as the asset's content",
      '# the asset in the listing, and its content',
      '# the file back, through its download link',
    ]);
    const result = await bash(script, workDir, env);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    const [, admin, asset, upload, listing, download, vars] = result.stdout.split(/^@@(?:step \d+|vars)\n/m);

    // The administrator: `cairn users create` answered its id; a token was issued.
    const [adminId] = jsonLines(admin ?? '') as { id: string }[];
    expect(adminId?.id).toMatch(uuid);
    const [token, assetId] = (vars ?? '').trim().split('\n');
    expect(token?.length).toBeGreaterThan(20);
    // The asset: its id was taken from the answer, nothing else printed.
    expect(assetId).toMatch(uuid);
    expect(asset?.trim()).toBe('');

    // The upload: a record of the file as sent, on the `local` repository, paid by the
    // administrator's default allocation.
    const bytes = await readFile(path.join(workDir, 'samples.csv'));
    const [record] = jsonLines(upload ?? '') as { id: string; asset_id: string; filename: string; size: number; sha256: string; repository_id: string; allocation_id: string }[];
    expect(record).toMatchObject({ asset_id: assetId, filename: 'samples.csv', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    const headers = { Authorization: `Bearer ${token ?? ''}` };
    const repositories = (await (await fetch(`${base}/api/repositories/`, { headers })).json()) as { id: string; name: string }[];
    expect(repositories.find((r) => r.id === record?.repository_id)?.name).toBe('local');
    const allocation = (await (await fetch(`${base}/api/allocations/${record?.allocation_id ?? ''}/`, { headers })).json()) as { owner_id: string; limit_bytes: number; used_bytes: number };
    expect(allocation).toMatchObject({ owner_id: adminId?.id, limit_bytes: 10 * 1024 ** 3, used_bytes: bytes.length });

    // The listing shows the asset; its content lists the record.
    const [assets, contents] = jsonLines(listing ?? '') as [{ id: string; title: string }[], { id: string }[]];
    expect(assets.map((a) => [a.id, a.title])).toEqual([[assetId, 'First dataset']]);
    expect(contents.map((c) => c.id)).toEqual([record?.id]);

    // The download: the same bytes, printed and written.
    expect(download).toBe(bytes.toString());
    expect((await readFile(path.join(workDir, 'downloaded.csv'))).equals(bytes)).toBe(true);
  }, 240_000);
});
