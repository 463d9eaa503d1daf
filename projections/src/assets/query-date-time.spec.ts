import { describe, expect, it } from 'vitest';
import { isQueryDateTime } from './query-date-time.ts';

describe('the query language date-times', () => {
  it('accepts what PostgreSQL reads as timestamptz', () => {
    for (const text of ['2026-01-01', '2024-02-29', '2000-02-29T12:00Z', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999999+15:59', '2026-06-30T10:20:30.5-05:00']) {
      expect(isQueryDateTime(text), text).toBe(true);
    }
  });

  it('refuses what PostgreSQL refuses, which Date.parse takes', () => {
    for (const text of ['0000-01-01T00:00:00Z', '0000-06-01', '2021-02-29', '1900-02-29', '2021-04-31', '2021-02-30T00:00:00Z', '2020-01-01T24:00:00Z', '2020-01-01T23:60Z', '2020-01-01T23:59:60Z', '2020-01-01T00:00:00+16:00', '2020-01-01T00:00:00+01:60']) {
      expect(isQueryDateTime(text), text).toBe(false);
    }
  });

  it('refuses other shapes', () => {
    for (const text of ['yesterday', '2026-1-01', '2026-01-01T10:00', '2026-01-01 10:00Z', '+002026-01-01', '2026-01-01T10:00:00.1234567Z', '']) {
      expect(isQueryDateTime(text), text).toBe(false);
    }
  });
});
