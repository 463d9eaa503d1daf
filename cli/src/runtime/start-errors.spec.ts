import { describe, expect, it } from 'vitest';
import { explainDatabaseError, explainFileError, explainListenError, explainServerFailure, type ServerFailure } from './start-errors.ts';

// What initdb and postgres 17 print, as captured on this machine (docs/first-start.md).
const base: Omit<ServerFailure, 'output' | 'stage'> = { dataDir: '/srv/cairn/data', databaseDir: '/srv/cairn/data/postgres', port: 54329, runAs: 'postgres', freeBytes: 1024 * 1024 };
const explain = (stage: ServerFailure['stage'], output: string, over: Partial<ServerFailure> = {}) => explainServerFailure({ ...base, stage, output, ...over });

const oneLine = (line: string) => {
  expect(line).not.toContain('\n');
  expect(line.length).toBeLessThan(400);
  return line;
};

describe('the line for a failed initdb or postgres', () => {
  it('names a full disk, how much is free, and the fix, from initdb and from the server', () => {
    const initdb = `running bootstrap script ... 2026-11-23 14:28:47.165 UTC [24063] FATAL:  could not write to file "pg_wal/xlogtemp.24063": No space left on device
child process exited with exit code 1
initdb: removing contents of data directory "/proc/self/cwd"`;
    expect(oneLine(explain('initialize', initdb))).toBe(
      'no space left on the disk that holds /srv/cairn/data (1 MB free; the embedded PostgreSQL needs about 100 MB to start): free some space, or set CAIRN_DATA_DIR to a directory on a larger disk',
    );
    const later = '2026-11-23 14:28:51.762 UTC [24118] FATAL:  could not write to file "base/4/1247": No space left on device\n2026-11-23 14:28:51.762 UTC [24118] STATEMENT:  CREATE DATABASE template0';
    expect(explain('initialize', later, { freeBytes: 30 * 1024 * 1024 })).toContain('(30 MB free;');
    expect(explain('start', later, { freeBytes: null })).toContain('(the embedded PostgreSQL needs');
  });

  it('tells a full /dev/shm from a full disk', () => {
    const line = explain('start', '2026-11-23 14:28:51.762 UTC [1] FATAL:  could not resize shared memory segment "/PostgreSQL.1" to 8388608 bytes: No space left on device');
    expect(oneLine(line)).toMatch(/^the embedded PostgreSQL could not allocate shared memory .*\/dev\/shm is full or too small; .*--shm-size/);
  });

  it('names the embedded port in use, whether the TCP port or its socket lock is taken', () => {
    const bind = `2026-11-23 14:32:31.800 UTC [26517] LOG:  starting PostgreSQL 17.10 on x86_64-pc-linux-gnu
2026-11-23 14:32:31.800 UTC [26517] LOG:  could not bind IPv4 address "127.0.0.1": Address already in use
2026-11-23 14:32:31.800 UTC [26517] HINT:  Is another postmaster already running on port 54329? If not, wait a few seconds and retry.
2026-11-23 14:32:31.800 UTC [26517] WARNING:  could not create listen socket for "127.0.0.1"
2026-11-23 14:32:31.800 UTC [26517] FATAL:  could not create any TCP/IP sockets`;
    const expected = 'port 54329 of the embedded PostgreSQL (CAIRN_EMBEDDED_PG_PORT) is in use by another program: stop that program, or set CAIRN_EMBEDDED_PG_PORT to a free port';
    expect(explain('start', bind)).toBe(expected);
    expect(explain('start', 'FATAL:  could not create lock file "/tmp/.s.PGSQL.54329.lock": File exists')).toBe(expected);
  });

  it('names another server already running on the same data directory', () => {
    const output = `2026-11-23 14:32:37.451 UTC [26552] FATAL:  lock file "postmaster.pid" already exists
2026-11-23 14:32:37.451 UTC [26552] HINT:  Is another postmaster (PID 26543) running in data directory "/srv/cairn/data/postgres"?`;
    expect(oneLine(explain('start', output))).toBe(
      'another PostgreSQL server (PID 26543) already runs on /srv/cairn/data/postgres but does not answer Cairn on port 54329: stop it, or set CAIRN_EMBEDDED_PG_PORT to the port it listens on',
    );
  });

  it('names a data directory of another major version', () => {
    const output = `2026-11-23 14:32:31.209 UTC [26506] FATAL:  database files are incompatible with server
2026-11-23 14:32:31.209 UTC [26506] DETAIL:  The data directory was initialized by PostgreSQL version 15, which is not compatible with this version 17.10.`;
    expect(explain('start', output)).toBe(
      '/srv/cairn/data/postgres was made by PostgreSQL 15, but the embedded server is PostgreSQL 17: move it away to start afresh, upgrade it with pg_upgrade, or set DATABASE_URL to a PostgreSQL 15 server',
    );
  });

  it('names the directory the server may not access, as root and as a user', () => {
    // What the first start printed before this work, as root with the project in a 0700 directory.
    const output = 'initdb: error: could not access directory "/root/cairn/data/postgres": Permission denied';
    expect(oneLine(explain('initialize', output))).toBe(
      'the embedded PostgreSQL runs as the user postgres, which may not access /root/cairn/data/postgres: give that user access to /srv/cairn/data, set CAIRN_DATA_DIR to a directory it can reach, such as /var/lib/cairn, or set DATABASE_URL',
    );
    expect(explain('initialize', output, { runAs: null })).toMatch(/^the embedded PostgreSQL may not access \/root\/cairn\/data\/postgres: give your user access/);
    expect(explain('start', 'error: could not run "/x/bin/postgres": Permission denied')).toContain('may not access /x/bin/postgres');
  });

  it('names a data directory of another user', () => {
    const output = 'FATAL:  data directory "/srv/cairn/data/postgres" has wrong ownership\nHINT:  The server must be started by the user that owns the data directory.';
    expect(oneLine(explain('start', output, { runAs: null }))).toMatch(/^\/srv\/cairn\/data\/postgres belongs to another user .* chown -R$/);
  });

  it('falls back to the first error line it printed, never a stack', () => {
    const output = 'some log\n2026-11-23 14:00:00.000 UTC [1] FATAL:  invalid value for parameter "shared_buffers": "x"\nmore';
    expect(explain('start', output)).toBe(
      'the embedded PostgreSQL failed to start: FATAL: invalid value for parameter "shared_buffers": "x" (CAIRN_LOG_LEVEL=debug shows all it printed)',
    );
    expect(explain('initialize', 'initdb: error: invalid locale settings; check LANG and LC_* environment variables')).toBe(
      'the embedded PostgreSQL failed to initialize /srv/cairn/data/postgres: initdb: error: invalid locale settings; check LANG and LC_* environment variables (CAIRN_LOG_LEVEL=debug shows all it printed)',
    );
    expect(oneLine(explain('start', 'x'.repeat(5000)))).toContain('...');
    expect(explain('start', '')).toContain('failed to start: no output');
  });
});

describe('the line for a file, listen or database error at start', () => {
  const errno = (code: string) => Object.assign(new Error(code), { code });

  it('maps the data directory errors of Cairn itself', () => {
    expect(explainFileError(errno('ENOSPC'), '/d/postgres', '/d', 0)).toMatch(/^no space left on the disk that holds \/d \(0 kB free;/);
    expect(explainFileError(errno('EACCES'), '/var/lib/cairn', '/var/lib/cairn', null)).toBe('cannot write /var/lib/cairn: permission denied; set CAIRN_DATA_DIR to a directory you may write, or set DATABASE_URL');
    expect(explainFileError(errno('EROFS'), '/d', '/d', null)).toMatch(/read-only/);
    expect(explainFileError(errno('ENOTDIR'), '/d', '/d', null)).toMatch(/in the way/);
    expect(explainFileError(errno('EIO'), '/d', '/d', null)).toBeNull();
  });

  it('maps the HTTP listen errors', () => {
    expect(explainListenError(errno('EADDRINUSE'), '127.0.0.1', 8000)).toBe('port 8000 on 127.0.0.1 (PORT) is in use by another program: stop that program, or set PORT (or --port) to a free port');
    expect(explainListenError(errno('EACCES'), '127.0.0.1', 80)).toMatch(/1024 or above/);
    expect(explainListenError(errno('EADDRNOTAVAIL'), '10.9.9.9', 8000)).toMatch(/^10\.9\.9\.9 \(HOST\) is not an address of this machine/);
    expect(explainListenError(errno('EMFILE'), '127.0.0.1', 8000)).toBeNull();
  });

  it('maps database errors without ever printing the password', () => {
    const target = { databaseUrl: 'postgres://cairn:s3cret@db.example:6543/cairn', dataDir: '/d', freeBytes: null };
    const lines = ['ECONNREFUSED', 'ENOTFOUND', '28P01', '3D000', '53100'].map((code) => explainDatabaseError(errno(code), target));
    expect(lines[0]).toBe('nothing answers at db.example:6543/cairn (DATABASE_URL): start that PostgreSQL server, or unset DATABASE_URL to use the embedded one');
    for (const line of lines) {
      expect(line).toContain('db.example:6543');
      expect(line).not.toContain('s3cret');
    }
    // The embedded server's disk filled while migrating.
    expect(explainDatabaseError(errno('53100'), { databaseUrl: undefined, dataDir: '/d', freeBytes: 2 * 1024 * 1024 })).toMatch(/^no space left on the disk that holds \/d \(2 MB free;/);
    expect(explainDatabaseError(errno('ECONNREFUSED'), { databaseUrl: undefined, dataDir: '/d', freeBytes: null })).toBeNull();
    expect(explainDatabaseError(errno('23505'), target)).toBeNull();
  });
});
