import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, repoRoot, runCairn, runProcess, type CliResult } from '../support/processes.ts';

// docs/first-start.md: a first start works, or stops with one line naming the cause and the fix.

const asRoot = process.getuid?.() === 0;
const cairnBin = path.join(repoRoot, 'cli/bin/cairn.js');
// A private mount namespace: what a test mounts there vanishes with its process.
const canMount = asRoot && spawnSync('unshare', ['-m', '--propagation', 'private', 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs /mnt'], { stdio: 'ignore' }).status === 0;
const noMountReason = asRoot ? 'unshare and mount are not permitted here' : 'needs root (this machine and CI run the tests as root)';

/** The one line a failed start prints on stderr: no stack, no second line. */
function theLine(result: CliResult): string {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  return lines[0] ?? '';
}

const run = (command: string, args: readonly string[], env: Record<string, string>) => runProcess(command, args, env);

type Running = { output: () => string; stop(): Promise<void> };

/** A `cairn serve` started by any command; resolves once it listens. */
function startServer(command: string, args: readonly string[], env: Record<string, string>, timeoutMs = 120_000): Promise<Running> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cairn serve did not start in time:\n${output}`));
    }, timeoutMs);
    const stop = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
      });
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      if (/Cairn \(\w+\) listening on/.test(output)) {
        clearTimeout(timer);
        resolve({ output: () => output, stop });
      }
    });
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`cairn serve exited with ${code}:\n${output}`));
    });
  });
}

function occupy(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

async function answers(port: number): Promise<boolean> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password: 'cairn-embedded', database: 'postgres', connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** An initdb of another PostgreSQL major version than the bundled one (17), if the machine has one (Debian's 15 here). */
function otherInitdb(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const other = readdirSync(root).find((v) => v !== '17' && existsSync(path.join(root, v, 'bin/initdb')));
  return other ? path.join(root, other, 'bin/initdb') : null;
}

describe('a first start that cannot fail obscurely', () => {
  const dirs: string[] = [];
  const blockers: Server[] = [];
  const running: Running[] = [];
  let base: string;
  /** One cluster, made once by `cairn migrate` (initdb takes seconds), for the port tests. */
  let shared: string;

  const env = (dataDir: string, port: number, pgPort: number): Record<string, string> => ({
    CAIRN_DATA_DIR: dataDir,
    PORT: String(port),
    CAIRN_EMBEDDED_PG_PORT: String(pgPort),
    CAIRN_LOG_LEVEL: 'warn',
    DATABASE_URL: '',
  });

  beforeAll(async () => {
    base = await mkdtemp(path.join(tmpdir(), 'cairn-first-start-'));
    await chmod(base, 0o755);
    dirs.push(base);
    shared = path.join(base, 'shared');
    const made = await runCairn(['migrate'], env(shared, await freePort(), await freePort()));
    expect(made.code, made.stderr).toBe(0);
  }, 120_000);
  afterAll(async () => {
    for (const server of running) await server.stop();
    for (const blocker of blockers) blocker.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('as root, with the project and its data in a directory only root may enter (mode 0700), starts, keeps the data there, and starts again', async (ctx) => {
    if (!canMount) return ctx.skip(`${noMountReason}: the test puts the project in a 0700 directory with a bind mount`);
    // The project seen at <home>/project, as if cloned into root's home; the data beside it.
    const home = await mkdtemp(path.join(tmpdir(), 'cairn-home-'));
    dirs.push(home);
    await chmod(home, 0o700);
    const project = path.join(home, 'project');
    await mkdir(project);
    const dataDir = path.join(home, 'data');
    const [port, pgPort] = [await freePort(), await freePort()];
    const vars = env(dataDir, port, pgPort);
    // The server runs from <home>/project: its PostgreSQL binaries are behind the 0700 directory too.
    const script = 'mount --bind "$0" "$1" && cd "$1" && exec "$2" cli/bin/cairn.js serve';
    const start = () => startServer('unshare', ['-m', '--propagation', 'private', 'sh', '-c', script, repoRoot, project, process.execPath], { ...vars, CAIRN_LOG_LEVEL: 'info' });

    const first = await start();
    running.push(first);
    expect(first.output()).not.toMatch(/EACCES|Permission denied/);
    const through = first
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { message?: string; closed?: string })
      .find((l) => l.message === 'the embedded PostgreSQL reaches its data directory through its working directory');
    expect(through?.closed, first.output()).toMatch(/cairn-home-/);
    expect(first.output()).toMatch(/"message":"the embedded PostgreSQL runs from a copy of its binaries"/);

    // The command line beside it (from the repository itself) reaches its database.
    expect((await runCairn(['users', 'create', '--email', 'home@example.org', '--name', 'Home', '--system-admin'], vars)).code).toBe(0);
    const token = (JSON.parse((await runCairn(['tokens', 'issue', '--user', 'home@example.org'], vars)).stdout) as { access_token: string }).access_token;
    const api = `http://127.0.0.1:${port}/api/funding-agencies/`;
    const created = await fetch(api, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Kept at home' }) });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    // The server reaches its PostgreSQL through the Unix socket (no client address there), not loopback TCP.
    const admin = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'postgres', password: 'cairn-embedded', database: 'postgres' });
    await admin.connect();
    const { rows: sessions } = await admin.query<{ socket: number; tcp: number }>(
      "select count(*) filter (where client_addr is null)::int as socket, count(*) filter (where client_addr is not null)::int as tcp from pg_stat_activity where datname = 'cairn' and backend_type = 'client backend'",
    );
    await admin.end();
    expect(sessions[0]?.socket).toBeGreaterThan(0);
    expect(sessions[0]?.tcp).toBe(0);
    await first.stop();

    // The cluster is under the data directory, the postgres user's; home is as closed as it was.
    expect(existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    const [uid, gid] = ['-u', '-g'].map((flag) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout));
    expect((await stat(path.join(dataDir, 'postgres'))).uid).toBe(uid);
    expect((await stat(home)).mode & 0o777).toBe(0o700);
    // Started inside its cluster, the server cannot climb out of it to what home protects.
    await writeFile(path.join(home, 'secret'), 'x', { mode: 0o644 });
    const asPostgres = (command: string) => spawnSync('sh', ['-c', command], { cwd: path.join(dataDir, 'postgres'), uid, gid, stdio: 'ignore' }).status;
    expect(asPostgres('cat PG_VERSION')).toBe(0);
    expect(asPostgres('ls ..')).not.toBe(0);
    expect(asPostgres('cat ../../secret')).not.toBe(0);

    const second = await start();
    running.push(second);
    expect(second.output()).not.toContain('initializing the embedded PostgreSQL');
    const read = await fetch(`${api}${id}/`, { headers: { Authorization: `Bearer ${token}` } });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { name: string }).name).toBe('Kept at home');
    await second.stop();
  }, 240_000);

  it('stops with one line when the embedded PostgreSQL port is taken', async () => {
    const pgPort = await freePort();
    blockers.push(await occupy(pgPort));
    const line = theLine(await runCairn(['serve'], env(shared, await freePort(), pgPort)));
    expect(line).toBe(
      `cairn: port ${pgPort} of the embedded PostgreSQL (CAIRN_EMBEDDED_PG_PORT) is in use by another program: stop that program, or set CAIRN_EMBEDDED_PG_PORT to a free port`,
    );
  }, 60_000);

  it('stops with one line when the HTTP port is taken, and stops the PostgreSQL it started', async () => {
    const [port, pgPort] = [await freePort(), await freePort()];
    blockers.push(await occupy(port));
    const line = theLine(await runCairn(['serve'], env(shared, port, pgPort)));
    expect(line).toBe(`cairn: port ${port} on 127.0.0.1 (PORT) is in use by another program: stop that program, or set PORT (or --port) to a free port`);
    expect(existsSync(path.join(shared, 'postgres', 'postmaster.pid'))).toBe(false);
    expect(await answers(pgPort)).toBe(false);
  }, 60_000);

  it('stops with one line on a data directory of another PostgreSQL major version', async () => {
    const dataDir = path.join(base, 'old');
    const databaseDir = path.join(dataDir, 'postgres');
    await mkdir(databaseDir, { recursive: true });
    const initdb = otherInitdb();
    if (initdb) {
      // A real cluster of that version, made as its server would run (not as root).
      const owner = asRoot ? Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout) : undefined;
      if (owner !== undefined) await chown(databaseDir, owner, owner);
      const made = spawnSync(initdb, ['-D', databaseDir, '-A', 'trust', '-U', 'postgres'], { ...(owner !== undefined ? { uid: owner, gid: Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout) } : {}), encoding: 'utf8' });
      expect(made.status, made.stderr).toBe(0);
    } else {
      await writeFile(path.join(databaseDir, 'PG_VERSION'), '15\n');
    }
    const theirs = spawnSync('cat', [path.join(databaseDir, 'PG_VERSION')], { encoding: 'utf8' }).stdout.trim();
    const line = theLine(await runCairn(['serve'], env(dataDir, await freePort(), await freePort())));
    expect(line).toBe(
      `cairn: ${databaseDir} was made by PostgreSQL ${theirs}, but the embedded server is PostgreSQL 17: move it away to start afresh, upgrade it with pg_upgrade, or set DATABASE_URL to a PostgreSQL ${theirs} server`,
    );
  }, 60_000);

  it('stops with one line when the disk of the data directory is full (a 1 MB tmpfs)', async (ctx) => {
    if (!canMount) return ctx.skip(`${noMountReason}: start-errors.spec.ts covers the same line from initdb's own words`);
    const dataDir = path.join(base, 'full');
    await mkdir(dataDir);
    const vars = env(dataDir, await freePort(), await freePort());
    const script = 'mount -t tmpfs -o size=1m tmpfs "$0" && exec "$1" "$2" serve';
    const line = theLine(await run('unshare', ['-m', '--propagation', 'private', 'sh', '-c', script, dataDir, process.execPath, cairnBin], vars));
    expect(line).toMatch(
      new RegExp(`^cairn: no space left on the disk that holds ${dataDir} \\(1 MB free; the embedded PostgreSQL needs about 100 MB to start\\): free some space, or set CAIRN_DATA_DIR to a directory on a larger disk$`),
    );
  }, 60_000);

  it('stops with one line when nothing answers at DATABASE_URL, without printing its password', async () => {
    const port = await freePort();
    const line = theLine(await runCairn(['migrate'], { DATABASE_URL: `postgres://cairn:s3cret@127.0.0.1:${port}/cairn`, CAIRN_LOG_LEVEL: 'warn' }));
    expect(line).toBe(`cairn: nothing answers at 127.0.0.1:${port}/cairn (DATABASE_URL): start that PostgreSQL server, or unset DATABASE_URL to use the embedded one`);
  }, 60_000);
});
