import pg from 'pg';

const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => Date;

/**
 * A `timestamptz` as PostgreSQL writes it as text (`2026-11-25 20:18:47.417123+00` in a UTC
 * session) to the ISO text `Date.toISOString` writes (`2026-11-25T20:18:47.417Z`), which
 * events carry as `recordedAt` and audit hashes keep. A UTC value with a four-digit year is
 * rewritten as a string (milliseconds truncated, as pg's own parser truncates them: a log
 * replay reads a million of these); anything else goes through that parser and a `Date`.
 */
export function isoFromTimestamptzText(text: string): string {
  const length = text.length;
  if (length >= 22 && text.charCodeAt(4) === 45 /* - */ && text.charCodeAt(10) === 32 /* space */ && text.endsWith('+00')) {
    const seconds = text.slice(0, 10) + 'T' + text.slice(11, 19);
    if (length === 22) return `${seconds}.000Z`;
    if (text.charCodeAt(19) === 46 /* . */) return `${seconds}.${(text.slice(20, length - 3) + '000').slice(0, 3)}Z`;
  }
  return parseTimestamptz(text).toISOString();
}
