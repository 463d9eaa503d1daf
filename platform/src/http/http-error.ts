import type { DomainErrorKind } from '@cairn/domain';

export type FieldErrors = Record<string, string[]>;

/** The one error shape of DECISIONS.md section 1; `code` is what clients switch on. */
export type ErrorBody = { status: number; code: string; detail: string; errors?: FieldErrors };

export class HttpError extends Error {
  override name = 'HttpError';
  readonly status: number;
  readonly code: string;
  readonly errors: FieldErrors | undefined;
  readonly headers: Record<string, string>;
  constructor(
    status: number,
    code: string,
    detail: string,
    errors?: FieldErrors,
    headers: Record<string, string> = {},
  ) {
    super(detail);
    this.status = status;
    this.code = code;
    this.errors = errors;
    this.headers = headers;
  }

  toBody(): ErrorBody {
    return { status: this.status, code: this.code, detail: this.message, ...(this.errors ? { errors: this.errors } : {}) };
  }
}

export const httpErrors = {
  validation: (errors: FieldErrors, detail = 'The request is not valid.') => new HttpError(400, 'validation_error', detail, errors),
  badRequest: (code: string, detail: string) => new HttpError(400, code, detail),
  unauthenticated: (detail = 'Authentication credentials were not provided or are not valid.') =>
    new HttpError(401, 'not_authenticated', detail, undefined, { 'WWW-Authenticate': 'Bearer realm="api"' }),
  forbidden: (detail = 'You do not have permission to perform this action.', code = 'permission_denied') => new HttpError(403, code, detail),
  notFound: (detail = 'Not found.') => new HttpError(404, 'not_found', detail),
  /**
   * An id inside a body that names nothing the caller may see (DECISIONS.md 1): unknown and
   * hidden get this same answer, naming the field and nothing about what it names.
   */
  unknownReference: (fields: string | readonly string[], detail = 'A resource the request names was not found.') =>
    new HttpError(404, 'not_found', detail, Object.fromEntries((typeof fields === 'string' ? [fields] : fields).map((f) => [f, ['Not found.']]))),
  methodNotAllowed: (method: string, allow: readonly string[]) =>
    new HttpError(405, 'method_not_allowed', `Method ${method} is not allowed here.`, undefined, { Allow: allow.join(', ') }),
  conflict: (code: string, detail: string) => new HttpError(409, code, detail),
  misdirected: () => new HttpError(421, 'misdirected_request', 'This service does not serve that operation; send it through the gateway (reads to the query service, writes to the command service).'),
  payloadTooLarge: (limit: number) => new HttpError(413, 'payload_too_large', `The request body is larger than ${limit} bytes.`),
  unsupportedMediaType: (type: string) =>
    new HttpError(415, 'unsupported_media_type', `Content type "${type}" is not supported; send application/json, application/x-www-form-urlencoded or multipart/form-data.`),
  tooManyRequests: (retryAfterSeconds: number) =>
    new HttpError(429, 'rate_limited', 'Too many requests; try again later.', undefined, { 'Retry-After': String(retryAfterSeconds) }),
  unavailable: (code: string, detail: string, retryAfterSeconds = 1) => new HttpError(503, code, detail, undefined, { 'Retry-After': String(retryAfterSeconds) }),
  /** A feature this deployment switched off: 503 (DECISIONS §1) without `Retry-After`, since retrying changes nothing. */
  disabled: (code: string, detail: string) => new HttpError(503, code, detail),
};

export const statusOfDomainKind: Record<DomainErrorKind, number> = {
  invalid: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  locked: 423,
  precondition_failed: 412,
};
