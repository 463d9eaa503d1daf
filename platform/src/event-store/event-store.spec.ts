import { describe, expect, it } from 'vitest';
import { comparePositions, decodePosition, encodePosition } from './event-store.ts';

describe('global positions', () => {
  it('round-trips through the consistency token', () => {
    for (const position of [{ major: 0n, minor: 0n }, { major: 123456789n, minor: 42n }, { major: 2n ** 63n - 1n, minor: 2n ** 63n - 1n }]) {
      expect(decodePosition(encodePosition(position))).toEqual(position);
    }
  });

  it('rejects tokens it did not make', () => {
    for (const token of ['', 'abc', '1.2.3', 'A.B', '1.', '.1', '1 .2', 'zzzzzzzzzzzzzzz.1']) expect(decodePosition(token)).toBeNull();
  });

  it('orders by major, then minor', () => {
    expect(comparePositions({ major: 1n, minor: 9n }, { major: 2n, minor: 1n })).toBe(-1);
    expect(comparePositions({ major: 2n, minor: 1n }, { major: 2n, minor: 1n })).toBe(0);
    expect(comparePositions({ major: 2n, minor: 2n }, { major: 2n, minor: 1n })).toBe(1);
  });
});
