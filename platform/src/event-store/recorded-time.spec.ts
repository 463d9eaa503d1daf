import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isoFromTimestamptzText } from './recorded-time.ts';

const viaDate = (text: string) => (pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (t: string) => Date)(text).toISOString();

describe('isoFromTimestamptzText', () => {
  it('writes what pg’s parser and toISOString write, for fractions of 1 to 6 digits across the second (every 997th microsecond)', () => {
    for (let i = 0; i < 1_000_000; i += 997) {
      const digits = String(i).padStart(6, '0');
      for (const fraction of [digits, digits.slice(0, 3), digits.replace(/0+$/, '')]) {
        const text = fraction ? `2026-11-25 20:18:47.${fraction}+00` : '2026-11-25 20:18:47+00';
        expect(isoFromTimestamptzText(text)).toBe(viaDate(text));
      }
    }
    expect(isoFromTimestamptzText('2026-01-01 00:00:00.999999+00')).toBe('2026-01-01T00:00:00.999Z');
    expect(isoFromTimestamptzText('2024-02-29 12:00:00+00')).toBe('2024-02-29T12:00:00.000Z');
  });

  it('goes through a Date for other offsets and years', () => {
    for (const text of ['2026-06-30 23:59:59.0005+02', '2025-12-31 23:59:59.123456-05', '1999-12-31 23:59:59.9999+05:30', '0099-01-01 00:00:00+00 BC', '12026-01-01 00:00:00+00']) {
      expect(isoFromTimestamptzText(text)).toBe(viaDate(text));
    }
    expect(isoFromTimestamptzText('2026-06-30 23:59:59.0005+02')).toBe('2026-06-30T21:59:59.000Z');
  });
});
