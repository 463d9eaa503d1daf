import { describe, expect, it } from 'vitest';
import { availableParallelism } from 'node:os';
import { ConfigError, defaultPoolSize, loadConfig } from './config.ts';

describe('configuration', () => {
  it('has defaults for everything (DECISIONS.md 6)', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 8000, host: '127.0.0.1', databaseUrl: undefined, redisUrl: undefined, eventStoreUrl: undefined, publicUrl: 'http://127.0.0.1:8000' });
    expect(config.dataDir.endsWith('/data')).toBe(true);
  });

  it('bounds the serving pool and keeps the operations port off unless set', () => {
    expect(loadConfig({})).toMatchObject({ database: { connectTimeoutMs: 5000, queryTimeoutMs: 30_000 }, opsPort: undefined });
    expect(loadConfig({ CAIRN_DB_CONNECT_TIMEOUT_MS: '800', CAIRN_DB_QUERY_TIMEOUT_MS: '1200', CAIRN_OPS_PORT: '9100' })).toMatchObject({ database: { connectTimeoutMs: 800, queryTimeoutMs: 1200 }, opsPort: 9100 });
    // Empty is unset, not port 0 (which would listen on a random port).
    expect(loadConfig({ CAIRN_OPS_PORT: '' }).opsPort).toBeUndefined();
    expect(() => loadConfig({ CAIRN_DB_QUERY_TIMEOUT_MS: '0' })).toThrow(/CAIRN_DB_QUERY_TIMEOUT_MS/);
    expect(() => loadConfig({ CAIRN_OPS_PORT: 'metrics' })).toThrow(/CAIRN_OPS_PORT/);
  });

  it("sizes the serving pool to twice the machine's cores, from 4 to 20, unless set", () => {
    expect(defaultPoolSize(1)).toBe(4);
    expect(defaultPoolSize(2)).toBe(4);
    expect(defaultPoolSize(8)).toBe(16);
    expect(defaultPoolSize(64)).toBe(20);
    expect(loadConfig({}).database.poolSize).toBe(Math.min(20, Math.max(4, 2 * availableParallelism())));
    expect(loadConfig({ CAIRN_DB_POOL_SIZE: '12' }).database.poolSize).toBe(12);
    expect(loadConfig({ CAIRN_DB_POOL_SIZE: '' }).database.poolSize).toBe(defaultPoolSize(availableParallelism()));
    expect(() => loadConfig({ CAIRN_DB_POOL_SIZE: '1' })).toThrow(/CAIRN_DB_POOL_SIZE/);
    expect(() => loadConfig({ CAIRN_DB_POOL_SIZE: 'many' })).toThrow(/CAIRN_DB_POOL_SIZE/);
  });

  it('reads the listing\'s walk bound, where 0 turns the walks off and a negative is refused', () => {
    expect(loadConfig({}).listingWalkRows).toBe(5_000);
    expect(loadConfig({ CAIRN_LISTING_WALK_ROWS: '0' }).listingWalkRows).toBe(0);
    expect(() => loadConfig({ CAIRN_LISTING_WALK_ROWS: '-1' })).toThrow(/CAIRN_LISTING_WALK_ROWS/);
  });

  it("reads how long the callers' facts are kept, where 0 keeps none", () => {
    expect(loadConfig({}).viewerFactsSeconds).toBe(10);
    expect(loadConfig({ CAIRN_VIEWER_FACTS_SECONDS: '0' }).viewerFactsSeconds).toBe(0);
    expect(() => loadConfig({ CAIRN_VIEWER_FACTS_SECONDS: '-1' })).toThrow(/CAIRN_VIEWER_FACTS_SECONDS/);
  });

  it('reads the standbys from DATABASE_READ_URL, only beside a primary', () => {
    expect(loadConfig({}).standbys).toEqual({ urls: [], waitMs: 1000, maxLagMs: 10_000 });
    const primary = 'postgres://cairn@db/cairn';
    expect(loadConfig({ DATABASE_URL: primary, DATABASE_READ_URL: ' postgres://cairn@s1/cairn, postgresql://cairn@s2/cairn ,', CAIRN_STANDBY_WAIT_MS: '250' }).standbys).toEqual({
      urls: ['postgres://cairn@s1/cairn', 'postgresql://cairn@s2/cairn'],
      waitMs: 250,
      maxLagMs: 10_000,
    });
    expect(() => loadConfig({ DATABASE_URL: primary, DATABASE_READ_URL: 'mysql://s1/cairn' })).toThrow(/DATABASE_READ_URL/);
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://cairn@s1/cairn' })).toThrow(/DATABASE_READ_URL: needs DATABASE_URL/);
  });

  it('derives the public URL from HOST and PORT unless given', () => {
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }).publicUrl).toBe('http://0.0.0.0:9000');
    expect(loadConfig({ CAIRN_PUBLIC_URL: 'https://cairn.example.org/' }).publicUrl).toBe('https://cairn.example.org');
  });

  it('names every bad variable in one clear message', () => {
    expect(() => loadConfig({ PORT: 'x', DATABASE_URL: 'mysql://h/db', REDIS_URL: 'http://r' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'x', DATABASE_URL: 'mysql://h/db' })).toThrow(/PORT.*DATABASE_URL|DATABASE_URL.*PORT/);
    expect(loadConfig({ DATABASE_URL: '' }).databaseUrl).toBeUndefined();
  });

  it('bounds anonymous work and connections, and refuses a head that may outlast its request', () => {
    const config = loadConfig({});
    expect(config.signIn).toMatchObject({ maxAnonymousRequestsPerMinute: 600, maxOAuthStartsPerMinute: 60, purgeIntervalSeconds: 60 });
    expect(config.http).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 300_000, keepAliveTimeoutMs: 5_000 });
    expect(() => loadConfig({ CAIRN_HEADERS_TIMEOUT_MS: '20000', CAIRN_REQUEST_TIMEOUT_MS: '10000' })).toThrow(/CAIRN_HEADERS_TIMEOUT_MS/);
    expect(() => loadConfig({ CAIRN_ANONYMOUS_REQUESTS_PER_MINUTE: '0' })).toThrow(/CAIRN_ANONYMOUS_REQUESTS_PER_MINUTE/);
  });

  it('grants new users 10 GiB on `local` on the embedded start, nothing with DATABASE_URL unless configured', () => {
    expect(loadConfig({}).storage.defaultAllocation).toEqual({ limitBytes: 10 * 1024 ** 3, repositoryName: 'local' });
    expect(loadConfig({ DATABASE_URL: 'postgres://h/db' }).storage.defaultAllocation.limitBytes).toBe(0);
    expect(loadConfig({ DATABASE_URL: 'postgres://h/db', CAIRN_DEFAULT_ALLOCATION_BYTES: '1000', CAIRN_DEFAULT_ALLOCATION_REPOSITORY: 'archive' }).storage.defaultAllocation).toEqual({ limitBytes: 1000, repositoryName: 'archive' });
    // 0 turns it off on the embedded start too; empty is unset.
    expect(loadConfig({ CAIRN_DEFAULT_ALLOCATION_BYTES: '0' }).storage.defaultAllocation.limitBytes).toBe(0);
    expect(loadConfig({ CAIRN_DEFAULT_ALLOCATION_BYTES: '', CAIRN_DEFAULT_ALLOCATION_REPOSITORY: '' }).storage.defaultAllocation).toEqual({ limitBytes: 10 * 1024 ** 3, repositoryName: 'local' });
    expect(() => loadConfig({ CAIRN_DEFAULT_ALLOCATION_BYTES: '-1' })).toThrow(/CAIRN_DEFAULT_ALLOCATION_BYTES/);
    expect(() => loadConfig({ CAIRN_DEFAULT_ALLOCATION_BYTES: '10GiB' })).toThrow(/CAIRN_DEFAULT_ALLOCATION_BYTES/);
  });
});
