/**
 * The date-times the structured query accepts (docs/asset-query.md): ISO 8601 as
 * `YYYY-MM-DD`, optionally `THH:MM[:SS[.ffffff]]` with `Z` or `±HH:MM`. Every one of them
 * is a date-time PostgreSQL reads as timestamptz. JavaScript's Date.parse is no judge of
 * that: it rolls 31 April into 1 May and takes the year 0000, `24:00` and a +16:00
 * offset, each of which PostgreSQL refuses with an error (a 500 before issue 23).
 */
const pattern = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(?:Z|[+-](\d{2}):(\d{2})))?$/;

const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

function daysIn(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Whether `text` is a date-time of the query language, and a real one. */
export function isQueryDateTime(text: string): boolean {
  const match = pattern.exec(text);
  if (!match) return false;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = match.slice(1).map((part) => (part === undefined ? 0 : Number(part)));
  if (year === undefined || month === undefined || day === undefined) return false;
  // Year 0000 does not exist for PostgreSQL (1 BC precedes AD 1); PostgreSQL reads offsets up to 15:59.
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return false;
  return (hour ?? 0) <= 23 && (minute ?? 0) <= 59 && (second ?? 0) <= 59 && (offsetHours ?? 0) <= 15 && (offsetMinutes ?? 0) <= 59;
}
