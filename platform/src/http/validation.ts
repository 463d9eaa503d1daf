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
