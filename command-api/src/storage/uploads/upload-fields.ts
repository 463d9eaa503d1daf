import { contentFieldErrors } from '../content-access.ts';

/** A domain check of one body field: its refusal is 400 naming the field (contentFieldErrors). */
export function fieldChecked<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    return contentFieldErrors(error);
  }
}
