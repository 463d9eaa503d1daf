import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readdir, rename, rm, stat, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '@cairn/platform';
import {
  binariesCache,
  bundledBinaries,
  cachedCopy,
  dataDirectoryVersion,
  ensureExecutable,
  firstClosedDirectory,
  majorVersion,
  messagesLocale,
  postgresAccount,
  type Account,
  type Binaries,
} from './postgres-binaries.ts';
import { explainFileError, explainServerFailure, otherVersion, StartError, unreachable } from './start-errors.ts';

export type EmbeddedDatabase = { readonly url: string; stop(): Promise<void> };

const password = 'cairn-embedded';

/** How the server is run: which binaries, as whom, and how it names its data directory. */
type Layout = {
  readonly binaries: Binaries;
  readonly account: Account | null;
  /**
   * True where `account` cannot pass through a directory above the data directory (root's
   * home, mode 0700): the server is then started in the data directory (root may enter it,
   * then becomes `postgres`) and told `-D /proc/self/cwd`, so it never walks the closed path.
   */
  readonly throughWorkingDirectory: boolean;
  readonly locale: string;
};

/**
 * With no DATABASE_URL: a real PostgreSQL server kept under the data directory, made on
 * first start and reused afterwards. It listens on 127.0.0.1 and its Unix socket, which
 * Cairn's processes use (throughSocket). Whatever stops a first start is a StartError of
 * one line (docs/first-start.md).
 */
export async function startEmbeddedPostgres(dataDirInput: string, port: number, logger: Logger): Promise<EmbeddedDatabase> {
  const dataDir = path.resolve(dataDirInput);
  const databaseDir = path.join(dataDir, 'postgres');
  const fileStep = async <T>(target: string, step: () => Promise<T>): Promise<T> => {
    try {
      return await step();
    } catch (error) {
      const line = explainFileError(error, target, dataDir, await freeBytes(dataDir));
      throw line ? new StartError(line) : error;
    }
  };
  await fileStep(dataDir, () => mkdir(dataDir, { recursive: true }));
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/cairn`;
  // Already started by another process of ours (the server, while `cairn` runs beside it).
  if (existsSync(path.join(databaseDir, 'postmaster.pid')) && (await reachable(url))) return { url: await throughSocket(url, port), stop: async () => undefined };

  const bundled = await bundledBinaries();
  const theirs = await dataDirectoryVersion(databaseDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EACCES' && error.code !== 'EPERM') throw error;
    throw new StartError(
      `cannot read ${databaseDir}: it belongs to another user (a start as root gives it to the user postgres): start Cairn as root again, give the directory to your user with chown -R, or set CAIRN_DATA_DIR to another directory`,
    );
  });
  const ours = await majorVersion(bundled);
  if (theirs !== null && theirs !== ours) throw new StartError(otherVersion(databaseDir, theirs, ours));
  await ensureExecutable(bundled);

  const layout = await arrange(bundled, dataDir, databaseDir, logger, fileStep);
  const failure = async (stage: 'initialize' | 'start', output: string) =>
    new StartError(explainServerFailure({ stage, output, dataDir, databaseDir, port, runAs: layout.account?.name ?? null, freeBytes: await freeBytes(dataDir) }));

  if (theirs === null) {
    logger.info('initializing the embedded PostgreSQL', { databaseDir });
    await initialise(layout, dataDir, databaseDir, logger, fileStep, failure);
  }
  const server = await launch(layout, databaseDir, port, logger, failure);
  // Checked rather than assumed: a first start stopped between initdb and this point
  // leaves a cluster without the database.
  try {
    if (!(await reachable(url))) await createDatabase(port, 'cairn');
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { url: await throughSocket(url, port), stop: () => server.stop() };
}

/** Where the server's Unix socket is: its own default (the bundled binaries are built with /tmp). */
const socketDirectory = '/tmp';

/**
 * The server's URL through its Unix socket, when that answers, else `tcpUrl`: sending a
 * statement through loopback TCP was 40 % of a query process's busy time, and a listing's
 * miss is served about 15 % faster through the socket (docs/benchmarks.md, ninth sitting).
 */
async function throughSocket(tcpUrl: string, port: number): Promise<string> {
  const socketUrl = `postgres://postgres:${password}@localhost:${port}/cairn?host=${encodeURIComponent(socketDirectory)}`;
  return (await reachable(socketUrl)) ? socketUrl : tcpUrl;
}

async function arrange(
  bundled: Binaries,
  dataDir: string,
  databaseDir: string,
  logger: Logger,
  fileStep: <T>(target: string, step: () => Promise<T>) => Promise<T>,
): Promise<Layout> {
  const locale = await messagesLocale();
  if (process.getuid?.() !== 0) return { binaries: bundled, account: null, throughWorkingDirectory: false, locale };
  // As root (as in CI and containers), the server runs as `postgres`, which must be able
  // to pass through the data directory to the cluster inside.
  const account = await postgresAccount();
  let binaries = bundled;
  const closedToBinaries = await firstClosedDirectory(bundled.postgres, account);
  if (closedToBinaries) {
    binaries = await cachedCopy(bundled, binariesCache, account);
    logger.info('the embedded PostgreSQL runs from a copy of its binaries', { closed: closedToBinaries.dir, copy: binaries.dir });
  }
  // Closed above the data directory (the project in root's home, mode 0700)?
  const closedToData = await firstClosedDirectory(dataDir, account);
  if (closedToData && (process.platform !== 'linux' || !existsSync('/proc/self/cwd'))) {
    throw new StartError(unreachable(account.name, closedToData.dir, closedToData.mode, dataDir));
  }
  await fileStep(dataDir, async () => {
    const { mode, gid } = await stat(dataDir);
    // Open: `postgres` passes through the data directory to its cluster. Closed above: the
    // server starts inside its cluster, and the data directory is closed to it too, so that
    // it cannot climb out through `..` to what the closed directory protects.
    const closed = mode & ~0o007 & ~(gid === account.gid ? 0o070 : 0);
    await chmod(dataDir, closedToData ? closed : mode | 0o011);
  });
  if (closedToData) {
    logger.info('the embedded PostgreSQL reaches its data directory through its working directory', { closed: closedToData.dir, databaseDir });
  }
  return { binaries, account, throughWorkingDirectory: closedToData !== null, locale };
}

/**
 * initdb into a folder beside the data directory, renamed into place once complete: a
 * first start interrupted half-way leaves no half-made cluster, and the next start begins again.
 */
async function initialise(
  layout: Layout,
  dataDir: string,
  databaseDir: string,
  logger: Logger,
  fileStep: <T>(target: string, step: () => Promise<T>) => Promise<T>,
  failure: (stage: 'initialize', output: string) => Promise<StartError>,
): Promise<void> {
  if (existsSync(databaseDir) && (await readdir(databaseDir)).length > 0) {
    throw new StartError(`${databaseDir} is not empty but holds no PostgreSQL cluster (no PG_VERSION): move it away, or set CAIRN_DATA_DIR to another directory`);
  }
  const staging = `${databaseDir}.initializing`;
  const { account } = layout;
  const secrets = await mkdtemp(path.join(tmpdir(), 'cairn-initdb-'));
  try {
    await fileStep(staging, async () => {
      await rm(staging, { recursive: true, force: true });
      await mkdir(staging, { mode: 0o700 });
      if (account) await chown(staging, account.uid, account.gid);
    });
    const passwordFile = path.join(secrets, 'password');
    await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
    if (account) {
      await chown(secrets, account.uid, account.gid);
      await chown(passwordFile, account.uid, account.gid);
    }
    const args = [
      `--pgdata=${layout.throughWorkingDirectory ? '/proc/self/cwd' : staging}`,
      '--auth=password',
      '--username=postgres',
      `--pwfile=${passwordFile}`,
      `--lc-messages=${layout.locale}`,
    ];
    const child = spawnAs(layout, layout.binaries.initdb, args, staging);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => logger.debug('embedded postgres', { message: chunk.toString().trim() }));
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      logger.debug('embedded postgres', { message: chunk.toString().trim() });
    });
    const code = await new Promise<number | null>((resolve) => {
      child.once('error', (error) => {
        output += `\n${spawnFailure(layout.binaries.initdb, error)}`;
        resolve(null);
      });
      child.once('close', (exitCode) => resolve(exitCode));
    });
    if (code !== 0) throw await failure('initialize', output);
    await fileStep(databaseDir, () => rename(staging, databaseDir));
  } finally {
    await rm(secrets, { recursive: true, force: true });
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
  }
}

type Server = { stop(): Promise<void> };

/** Starts `postgres` and resolves once it accepts connections; its early exit is a StartError. */
async function launch(layout: Layout, databaseDir: string, port: number, logger: Logger, failure: (stage: 'start', output: string) => Promise<StartError>): Promise<Server> {
  const args = ['-D', layout.throughWorkingDirectory ? '/proc/self/cwd' : databaseDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1'];
  const child = spawnAs(layout, layout.binaries.postgres, args, databaseDir);
  // Stopped with the process, whatever ends it (postgres's fast shutdown on SIGINT).
  const onExit = () => child.kill('SIGINT');
  process.once('exit', onExit);
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    let ready = false;
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      logger.debug('embedded postgres', { message: text.trim() });
      if (ready) return;
      output += text;
      if (output.includes('database system is ready to accept connections')) {
        ready = true;
        resolve();
      }
    });
    let failed = false;
    const fail = () => {
      process.removeListener('exit', onExit);
      if (ready || failed) return;
      failed = true;
      void failure('start', output).then(reject);
    };
    child.once('error', (error) => {
      output += `\n${spawnFailure(layout.binaries.postgres, error)}`;
      fail();
    });
    child.once('close', fail);
  });
  return {
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
      process.removeListener('exit', onExit);
    },
  };
}

function spawnAs(layout: Layout, command: string, args: readonly string[], cwd: string): ChildProcess {
  return spawn(command, args, {
    // libuv changes into `cwd` before it gives up root, which is what lets the server
    // start inside a data directory it could not reach by its path.
    cwd: layout.throughWorkingDirectory ? cwd : undefined,
    ...(layout.account ? { uid: layout.account.uid, gid: layout.account.gid } : {}),
    env: { ...process.env, LC_MESSAGES: layout.locale },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function spawnFailure(command: string, error: NodeJS.ErrnoException): string {
  return `error: could not run "${command}": ${error.code === 'EACCES' ? 'Permission denied' : error.message}`;
}

async function createDatabase(port: number, name: string): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  await client.connect();
  try {
    await client.query(`create database ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

export async function freeBytes(dir: string): Promise<number | null> {
  try {
    const info = await statfs(dir);
    return info.bavail * info.bsize;
  } catch {
    return null;
  }
}

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
