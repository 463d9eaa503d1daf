import type { core } from 'zod';

/**
 * The wording of field errors (docs/http.md), decided here for every schema rather than
 * per field: a missing field and a field of the wrong type are different mistakes, and a
 * schema's own message (once "This field is required." on a wrong type) may not blur them.
 */
export const requiredMessage = 'This field is required.';

/** A missing object field is reported under these codes: a missing enum is invalid_value, a missing union invalid_union. */
const missingCodes: ReadonlySet<string> = new Set(['invalid_type', 'invalid_value', 'invalid_union']);

const expectedWords: Readonly<Record<string, string>> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'true or false',
  object: 'a JSON object',
  record: 'a JSON object',
  array: 'a list',
  tuple: 'a list',
  date: 'a date',
};

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return 'text';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'true or false';
    case 'object':
      return 'a JSON object';
    default:
      return typeof value;
  }
}

function wrongType(expected: string, input: unknown): string {
  // 1.5 where a whole number belongs is a number still: name what is wrong with it.
  if ((expected === 'int' || expected === 'bigint') && typeof input === 'number') return 'Must be a whole number.';
  return `Must be ${expectedWords[expected] ?? expected}, not ${kindOf(input)}.`;
}

const isMissing = (issue: { readonly code?: string; readonly input?: unknown; readonly path: readonly PropertyKey[] }) =>
  issue.path.length > 0 && issue.input === undefined && missingCodes.has(issue.code ?? '');

/**
 * The per-parse error map: wording for issues whose schema says nothing of its own (a
 * schema's message outranks it). Enumerations list their values instead of zod's
 * "Invalid option".
 */
export const inputErrorMap: core.$ZodErrorMap = (issue) => {
  if (issue.input === undefined && missingCodes.has(issue.code ?? '')) return requiredMessage;
  if (issue.code === 'invalid_type') return wrongType(issue.expected, issue.input);
  if (issue.code === 'invalid_value') {
    const values = issue.values.map((v) => (typeof v === 'string' ? v : String(v)));
    return values.length === 1 ? `Must be ${values[0] ?? ''}.` : `Must be one of ${values.join(', ')}.`;
  }
  return undefined;
};

/**
 * The message reported for one issue of a parse run with `reportInput`: a missing field is
 * always "required" and a wrong type always names the type expected and the one sent,
 * whatever the schema's own message; every other issue keeps the schema's wording.
 */
export function issueMessage(issue: core.$ZodIssue): string {
  if (isMissing(issue)) return requiredMessage;
  if (issue.code === 'invalid_type' && issue.input !== undefined) return wrongType(issue.expected, issue.input);
  return issue.message;
}
