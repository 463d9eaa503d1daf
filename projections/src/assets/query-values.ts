import { isQueryDateTime } from './query-date-time.ts';

/** A part of the query that is not valid, by its path (`where.and[1].value`): answered 400. */
export class AssetQueryError extends Error {
  readonly path: string;
  constructor(
    path: string,
    message: string,
  ) {
    super(message);
    this.path = path;
  }
}

/**
 * What one query may hold (docs/asset-query.md, "Limits"). Each bounds the statement the
 * query becomes and the work PostgreSQL does for it; none is near what a person or a
 * script asking a real question writes. The metadata limits are those of the documents
 * themselves (docs/assets.md): a deeper path or value can match nothing.
 */
export const queryLimits = {
  depth: 10,
  conditions: 100,
  listLength: 1000,
  totalValues: 5000,
  textLength: 1000,
  valueLength: 10_000,
  valueDepth: 10,
  pathKeys: 10,
  keyLength: 200,
} as const;

/** What the query spent so far of its limits, counted while it compiles. */
export type QueryBudget = { conditions: number; values: number };

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const thousands = (n: number) => n.toLocaleString('en-US');

/** Counts `n` values against the total: every scalar value is one, every list its length. */
export function spend(budget: QueryBudget, n: number, path: string): void {
  budget.values += n;
  if (budget.values > queryLimits.totalValues) throw new AssetQueryError(path, `A query holds at most ${thousands(queryLimits.totalValues)} values in all.`);
}

export function validTime(value: unknown, path: string): string {
  if (typeof value !== 'string' || !isQueryDateTime(value)) throw new AssetQueryError(path, 'Must be an ISO 8601 date-time between the years 0001 and 9999, e.g. 2026-01-31T12:00:00Z.');
  return value;
}

export function text(value: unknown, path: string): string {
  if (typeof value !== 'string') throw new AssetQueryError(path, 'Must be a string.');
  if (value.length > queryLimits.textLength) throw new AssetQueryError(path, `Must be at most ${thousands(queryLimits.textLength)} characters.`);
  return value;
}

export function uuid(value: unknown, path: string): string {
  if (typeof value !== 'string' || !uuidPattern.test(value)) throw new AssetQueryError(path, 'Must be a UUID.');
  return value.toLowerCase();
}

export function list(value: unknown, path: string, budget: QueryBudget): unknown[] {
  if (!Array.isArray(value) || value.length === 0) throw new AssetQueryError(path, 'Must be a non-empty list.');
  if (value.length > queryLimits.listLength) throw new AssetQueryError(path, `Must hold at most ${thousands(queryLimits.listLength)} values.`);
  spend(budget, value.length, path);
  return value;
}

/** Levels of lists and objects in a JSON value; stops counting past the limit (the body's own nesting is bounded by the HTTP layer). */
function tooDeepOrLong(value: unknown, depth: number): string | null {
  if (typeof value === 'string') return value.length > queryLimits.textLength ? `Strings are at most ${thousands(queryLimits.textLength)} characters.` : null;
  if (value === null || typeof value !== 'object') return null;
  if (depth >= queryLimits.valueDepth) return `Values nest at most ${queryLimits.valueDepth} levels deep, as metadata does.`;
  for (const inner of Array.isArray(value) ? value : Object.values(value)) {
    const problem = tooDeepOrLong(inner, depth + 1);
    if (problem) return problem;
  }
  return null;
}

/** A JSON value to compare metadata with. */
export function jsonValue(value: unknown, path: string): unknown {
  if (value === undefined) throw new AssetQueryError(path, 'A value is required.');
  if (JSON.stringify(value).length > queryLimits.valueLength) throw new AssetQueryError(path, `The value is too large: at most ${thousands(queryLimits.valueLength)} characters as JSON.`);
  const problem = tooDeepOrLong(value, 0);
  if (problem) throw new AssetQueryError(path, problem);
  return value;
}

/** `metadata.a.b` → ['a', 'b']: dots go into nested objects. */
export function metadataKeys(field: string, path: string): string[] {
  const keys = field.slice('metadata.'.length).split('.', queryLimits.pathKeys + 1);
  if (keys.length > queryLimits.pathKeys) throw new AssetQueryError(path, `A metadata path holds at most ${queryLimits.pathKeys} keys, as metadata nests at most ${queryLimits.pathKeys} levels deep.`);
  if (keys.some((k) => k.length === 0 || k.length > queryLimits.keyLength)) throw new AssetQueryError(path, `Name a metadata key: metadata.KEY, dots going into nested objects, each key 1 to ${queryLimits.keyLength} characters.`);
  return keys;
}
