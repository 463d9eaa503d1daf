import type { z } from 'zod';
import { httpErrors, type FieldErrors } from './http-error.ts';
import { inputErrorMap, issueMessage } from './input-messages.ts';

/** Field errors by path. Paths hold the client's own names: the map inherits nothing. */
const newFieldErrors = (): FieldErrors => Object.create(null) as FieldErrors;

export function fieldErrors(error: z.ZodError): FieldErrors {
  const errors = newFieldErrors();
  for (const issue of error.issues) {
    const key = issue.path.length > 0 ? issue.path.map(String).join('.') : 'non_field_errors';
    (errors[key] ??= []).push(issueMessage(issue));
  }
  return errors;
}

export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what: 'body' | 'query'): z.output<S> {
  // `reportInput` keeps each issue's input, so that missing and wrongly typed fields are told apart.
  const result = schema.safeParse(input, { error: inputErrorMap, reportInput: true });
  if (!result.success) {
    throw httpErrors.validation(fieldErrors(result.error), what === 'body' ? 'The request body is not valid.' : 'The query parameters are not valid.');
  }
  return result.data;
}

const badText = (text: string) => text.includes('\u0000') || !text.isWellFormed();

/** At most this many fields are named in one answer: the rest of a hostile body adds nothing. */
export const maxReportedFields = 20;

type Frame = { readonly value: unknown; readonly key: string | number; readonly parent: Frame | null };

const pathOf = (frame: Frame | null): string => {
  const keys: string[] = [];
  for (let f = frame; f !== null && f.parent !== null; f = f.parent) keys.push(String(f.key));
  return keys.reverse().join('.') || 'non_field_errors';
};

/**
 * PostgreSQL stores neither NUL characters nor unpaired surrogates in text or jsonb: such
 * strings are refused up front, wherever they sit in a body or a query string. So is the
 * key `__proto__`: a JavaScript object cannot keep it as sent. One pass with a stack (no
 * recursion, no copied paths: a field's path is built only when it is reported), so the
 * cost is linear in the input however it nests.
 */
export function invalidTextFields(value: unknown, limit = maxReportedFields): Map<string, string> {
  const found = new Map<string, string>();
  const root: Frame = { value, key: '', parent: null };
  if (typeof value === 'string') {
    if (badText(value)) found.set(pathOf(root), textMessage);
    return found;
  }
  // Only containers get a frame; strings are checked where they sit and other scalars
  // cost nothing, so a million numbers allocate nothing. Fields are visited in document
  // order, so the first fields at fault are the ones named.
  const stack: Frame[] = [root];
  let children: Frame[] = [];
  const visit = (parent: Frame, key: string | number, item: unknown) => {
    if (typeof item === 'string') {
      if (found.size < limit && badText(item)) found.set(pathOf({ value: null, key, parent }), textMessage);
    } else if (item !== null && typeof item === 'object') {
      children.push({ value: item, key, parent });
    }
  };
  while (stack.length > 0 && found.size < limit) {
    const frame = stack.pop() as Frame;
    const current = frame.value;
    children = [];
    if (Array.isArray(current)) {
      for (let i = 0; i < current.length; i += 1) visit(frame, i, current[i]);
    } else if (current !== null && typeof current === 'object') {
      for (const key of Object.keys(current)) {
        if (key === '__proto__') found.set(pathOf({ value: null, key, parent: frame }), protoMessage);
        else if (badText(key)) found.set(pathOf(frame), textMessage);
        else visit(frame, key, (current as Record<string, unknown>)[key]);
      }
    }
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i] as Frame);
  }
  return found.size <= limit ? found : new Map([...found].slice(0, limit));
}

const textMessage = 'Text may not contain NUL characters or unpaired surrogates.';
const protoMessage = 'The name __proto__ is not accepted.';

export function assertValidText(value: unknown, what: 'body' | 'query'): void {
  const fields = invalidTextFields(value);
  if (fields.size === 0) return;
  const errors = newFieldErrors();
  for (const [field, message] of fields) errors[field] = [message];
  throw httpErrors.validation(errors, what === 'body' ? 'The request body is not valid.' : 'The query parameters are not valid.');
}

export function isStorableText(value: string): boolean {
  return !badText(value);
}
