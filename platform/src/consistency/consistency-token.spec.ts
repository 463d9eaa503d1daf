import { describe, expect, it } from 'vitest';
import { encodePosition } from '../event-store/event-store.ts';
import { decodeConsistencyToken, encodeConsistencyToken } from './consistency-token.ts';
import { formatLsn, parseLsn, replayTarget } from '../db/wal-position.ts';

describe('consistency tokens', () => {
  it('carry the log position and the WAL position, and read back', () => {
    const point = { position: { major: 123_456n, minor: 42n }, walLsn: parseLsn('16/B374D848') ?? 0n };
    expect(decodeConsistencyToken(encodeConsistencyToken(point))).toEqual(point);
  });

  it('accept the tokens issued before the WAL position, which name none', () => {
    const position = { major: 999n, minor: 7n };
    expect(decodeConsistencyToken(encodePosition(position))).toEqual({ position });
  });

  it('refuse anything else', () => {
    for (const token of ['', 'abc', '1.2.3.4', 'A.B', '1.2.', '1..2', 'zzzzzzzzzzzzzzz.1', '1.2.zzzzzzzzzzzzzzz']) expect(decodeConsistencyToken(token)).toBeNull();
  });
});

describe('WAL positions', () => {
  it('read and write pg_lsn text', () => {
    expect(parseLsn('0/0')).toBe(0n);
    expect(parseLsn('1/0')).toBe(1n << 32n);
    expect(formatLsn(parseLsn('16/B374D848') ?? 0n)).toBe('16/B374D848');
    expect(parseLsn('nope')).toBeNull();
  });
});

describe('replayTarget', () => {
  it('moves a position just past a page header back to the page boundary, and leaves others', () => {
    expect(replayTarget(8192n * 5n + 24n)).toBe(8192n * 5n);
    expect(replayTarget(16n * 1024n * 1024n * 3n + 40n)).toBe(16n * 1024n * 1024n * 3n);
    expect(replayTarget(8192n * 5n + 40n)).toBe(8192n * 5n + 40n);
    expect(replayTarget(8192n * 5n + 1000n)).toBe(8192n * 5n + 1000n);
  });
});
