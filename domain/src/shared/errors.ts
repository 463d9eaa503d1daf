/**
 * Every refusal of the domain carries a stable `code` (clients and tests switch on it)
 * and a `kind` that the HTTP layer maps to a status. The domain knows nothing of HTTP.
 */
export type DomainErrorKind = 'invalid' | 'forbidden' | 'not_found' | 'conflict' | 'locked' | 'precondition_failed';

export class DomainError extends Error {
  readonly kind: DomainErrorKind;
  readonly code: string;
  constructor(
    kind: DomainErrorKind,
    code: string,
    message: string,
  ) {
    super(message);
    this.kind = kind;
    this.code = code;
    this.name = 'DomainError';
  }
}

export const forbidden = (code: string, message: string) => new DomainError('forbidden', code, message);
export const notFound = (code: string, message: string) => new DomainError('not_found', code, message);
export const conflict = (code: string, message: string) => new DomainError('conflict', code, message);
export const invalid = (code: string, message: string) => new DomainError('invalid', code, message);
