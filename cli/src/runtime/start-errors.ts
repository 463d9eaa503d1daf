/**
 * A first start that cannot go on stops with one line naming the cause and the fix
 * (docs/first-start.md), never with a stack trace. These turn what went wrong — the text
 * `initdb` or `postgres` printed, a file system error, a listen error — into that line.
 */
export class StartError extends Error {
  override name = 'StartError';
}

/** What `initdb` or `postgres` printed before it failed, with where and as whom it ran. */
export type ServerFailure = {
  readonly stage: 'initialize' | 'start';
  readonly output: string;
  readonly dataDir: string;
  readonly databaseDir: string;
  readonly port: number;
  /** The account the server runs as when Cairn runs as root (`postgres`), else null. */
  readonly runAs: string | null;
  /** Free bytes on the data directory's file system, when known. */
  readonly freeBytes: number | null;
};

export const neededBytes = 100 * 1024 * 1024;

export function noSpace(dataDir: string, freeBytes: number | null): string {
  const free = freeBytes === null ? '' : `${formatBytes(freeBytes)} free; `;
  return `no space left on the disk that holds ${dataDir} (${free}the embedded PostgreSQL needs about ${formatBytes(neededBytes)} to start): free some space, or set CAIRN_DATA_DIR to a directory on a larger disk`;
}

export function portInUse(port: number): string {
  return `port ${port} of the embedded PostgreSQL (CAIRN_EMBEDDED_PG_PORT) is in use by another program: stop that program, or set CAIRN_EMBEDDED_PG_PORT to a free port`;
}

export function otherVersion(databaseDir: string, theirs: string, ours: string): string {
  return `${databaseDir} was made by PostgreSQL ${theirs}, but the embedded server is PostgreSQL ${ours}: move it away to start afresh, upgrade it with pg_upgrade, or set DATABASE_URL to a PostgreSQL ${theirs} server`;
}

export function unreachable(account: string, dir: string, mode: number, dataDir: string): string {
  return `the embedded PostgreSQL runs as the user ${account}, which cannot enter ${dir} (mode ${octal(mode)}) on the way to ${dataDir}: set CAIRN_DATA_DIR to a directory it can reach, such as /var/lib/cairn, or set DATABASE_URL`;
}

/** The line for a failed `initdb` or `postgres`, from what it printed. */
export function explainServerFailure(f: ServerFailure): string {
  const lines = f.output.split('\n').map(stripPrefix).filter((l) => l.length > 0);
  const find = (pattern: RegExp) => lines.find((l) => pattern.test(l));

  const full = find(/No space left on device/i);
  if (full) {
    if (/shared memory/i.test(full)) {
      return `the embedded PostgreSQL could not allocate shared memory (${clip(full)}): /dev/shm is full or too small; give it more room (with Docker: --shm-size=256m), or set DATABASE_URL`;
    }
    return noSpace(f.dataDir, f.freeBytes);
  }
  if (find(/could not bind .*Address already in use/i) || find(/could not create lock file ".*\.s\.PGSQL\.\d+\.lock"/i) || find(/another postmaster .* using socket file/i)) {
    return portInUse(f.port);
  }
  const other = find(/lock file "postmaster\.pid" already exists/i);
  if (other) {
    const pid = /PID (\d+)/.exec(lines.join(' '))?.[1];
    return `another PostgreSQL server${pid ? ` (PID ${pid})` : ''} already runs on ${f.databaseDir} but does not answer Cairn on port ${f.port}: stop it, or set CAIRN_EMBEDDED_PG_PORT to the port it listens on`;
  }
  const incompatible = /initialized by PostgreSQL version (\d+)[^]*?with this version (\d+)/.exec(lines.join(' '));
  if (incompatible) return otherVersion(f.databaseDir, incompatible[1] ?? '?', incompatible[2] ?? '?');
  if (find(/has wrong ownership/i)) {
    return `${f.databaseDir} belongs to another user than the one the embedded PostgreSQL runs as (${f.runAs ?? 'you'}), so it was made by a start as another user (as root, the server runs as postgres): start Cairn as that user again, or give the directory to ${f.runAs ?? 'your user'} with chown -R`;
  }
  const denied = find(/Permission denied/i);
  if (denied) {
    const where = /"([^"]+)"/.exec(denied)?.[1] ?? f.databaseDir;
    return f.runAs
      ? `the embedded PostgreSQL runs as the user ${f.runAs}, which may not access ${where}: give that user access to ${f.dataDir}, set CAIRN_DATA_DIR to a directory it can reach, such as /var/lib/cairn, or set DATABASE_URL`
      : `the embedded PostgreSQL may not access ${where}: give your user access to ${f.dataDir}, or set CAIRN_DATA_DIR to a directory you own`;
  }
  const first = find(/\b(FATAL|PANIC|ERROR):|\berror:/) ?? lines.at(-1) ?? 'no output';
  const what = f.stage === 'initialize' ? `initialize ${f.databaseDir}` : 'start';
  return `the embedded PostgreSQL failed to ${what}: ${clip(first)} (CAIRN_LOG_LEVEL=debug shows all it printed)`;
}

/** The line for a file system error of Cairn's own while it prepares the data directory, or null if it has none. */
export function explainFileError(error: unknown, target: string, dataDir: string, freeBytes: number | null): string | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return noSpace(dataDir, freeBytes);
    case 'EACCES':
    case 'EPERM':
      return `cannot write ${target}: permission denied; set CAIRN_DATA_DIR to a directory you may write, or set DATABASE_URL`;
    case 'EROFS':
      return `cannot write ${target}: the file system is read-only; set CAIRN_DATA_DIR to a writable directory, or set DATABASE_URL`;
    case 'ENOTDIR':
    case 'EEXIST':
      return `${target} is in the way: a file where the data directory needs a directory; move it away, or set CAIRN_DATA_DIR to another directory`;
    default:
      return null;
  }
}

/** The line for an HTTP listen error, or null if it has none. */
export function explainListenError(error: unknown, host: string, port: number): string | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} (PORT) is in use by another program: stop that program, or set PORT (or --port) to a free port`;
    case 'EACCES':
      return `port ${port} on ${host} (PORT) needs privileges this user lacks: set PORT (or --port) to 1024 or above`;
    case 'EADDRNOTAVAIL':
      return `${host} (HOST) is not an address of this machine: set HOST to one of its addresses, such as 127.0.0.1`;
    default:
      return null;
  }
}

// "2026-11-23 14:19:57.601 UTC [18477] FATAL:  ..." and "initdb: error: ..." → the message.
function stripPrefix(line: string): string {
  return line
    .replace(/^\[STDERR\]\s*/, '')
    .replace(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? \S+ \[\d+\] /, '')
    .trim();
}

function clip(line: string): string {
  const flat = line.replace(/\s+/g, ' ');
  return flat.length > 240 ? `${flat.slice(0, 237)}...` : flat;
}

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024 / 1024).toFixed(1)} GB`;
  if (bytes >= 1024 * 1024) return `${Math.round(bytes / 1024 / 1024)} MB`;
  return `${Math.round(bytes / 1024)} kB`;
}

/** Where the database is, for the line of a database error at start (never with the password). */
export type DatabaseTarget = { readonly databaseUrl: string | undefined; readonly dataDir: string; readonly freeBytes: number | null };

/** The line for an error of the database at start (connecting, migrating), or null if it has none. */
export function explainDatabaseError(error: unknown, target: DatabaseTarget): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  const server = target.databaseUrl ? describeServer(target.databaseUrl) : null;
  if (code === '53100') {
    return server ? `the PostgreSQL server at ${server} (DATABASE_URL) has no disk space left: free some on its disk` : noSpace(target.dataDir, target.freeBytes);
  }
  if (!server) return null;
  switch (code) {
    case 'ECONNREFUSED':
      return `nothing answers at ${server} (DATABASE_URL): start that PostgreSQL server, or unset DATABASE_URL to use the embedded one`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host of ${server} (DATABASE_URL) is unknown: correct DATABASE_URL, or unset it to use the embedded PostgreSQL`;
    case '28P01':
    case '28000':
      return `the PostgreSQL server at ${server} (DATABASE_URL) refused the user or password: correct DATABASE_URL`;
    case '3D000':
      return `the database of ${server} (DATABASE_URL) does not exist: create it (createdb), or correct DATABASE_URL`;
    default:
      return null;
  }
}

function describeServer(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname || 'localhost'}:${url.port || '5432'}${url.pathname.length > 1 ? url.pathname : ''}`;
  } catch {
    return 'DATABASE_URL';
  }
}
