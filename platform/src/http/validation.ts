import type { z } from 'zod';
import { httpErrors, type FieldErrors } from './http-error.ts';

export function fieldErrors(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const key = issue.path.length > 0 ? issue.path.map(String).join('.') : 'non_field_errors';
    (errors[key] ??= []).push(issue.message);
  }
  return errors;
}

export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what: 'body' | 'query'): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw httpErrors.validation(fieldErrors(result.error), what === 'body' ? 'The request body is not valid.' : 'The query parameters are not valid.');
  }
  return result.data;
}

const badText = (text: string) => text.includes('\u0000') || !text.isWellFormed();

/**
 * PostgreSQL stores neither NUL characters nor unpaired surrogates in text or jsonb: such
 * strings are refused up front, wherever they sit in a body or a query string.
 */
export function invalidTextFields(value: unknown, path: string[] = []): string[] {
  if (typeof value === 'string') return badText(value) ? [path.join('.') || 'non_field_errors'] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => invalidTextFields(item, [...path, String(index)]));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => (badText(key) ? [path.join('.') || 'non_field_errors'] : invalidTextFields(item, [...path, key])));
  }
  return [];
}

export function assertValidText(value: unknown, what: 'body' | 'query'): void {
  const fields = invalidTextFields(value);
  if (fields.length === 0) return;
  const errors = Object.fromEntries(fields.map((field) => [field, ['Text may not contain NUL characters or unpaired surrogates.']]));
  throw httpErrors.validation(errors, what === 'body' ? 'The request body is not valid.' : 'The query parameters are not valid.');
}

export function isStorableText(value: string): boolean {
  return !badText(value);
}
