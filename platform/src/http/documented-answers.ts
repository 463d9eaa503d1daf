import { z } from 'zod';
import type { ErrorStatus, OperationContract } from './operation.ts';
import type { ResponseHeaderName } from './response-headers.ts';

/**
 * What the OpenAPI document says an operation may answer, derived from the contract's
 * shape wherever the answer comes from shared code (mount-operations.ts, the body parser,
 * the anonymous budget, the error handler), so that a route added or changed stays
 * documented; a contract lists only what its own handler adds (`errors`, a response's
 * `headers`). test/src/support/openapi-drift.ts checks it against what the tests see.
 */

const errorDescriptions: Record<ErrorStatus, string> = {
  400: 'Invalid input: the body, a query parameter, a cursor, or the X-Consistency-Token or Idempotency-Key header.',
  401: 'No or bad credentials (also where none are needed, when bad ones are sent).',
  403: 'Not allowed: the role, the token’s scope, a permission flag, or a cross-site write with the session cookie.',
  404: 'Not found, or not visible to the caller; hidden and unknown ids, in the path or in the body, answer alike.',
  409: 'A refused guard or a conflicting write; also a request still running under the same Idempotency-Key (with Retry-After).',
  412: 'If-Match names an older version.',
  413: 'The body is too large.',
  415: 'Unsupported content type: send application/json, application/x-www-form-urlencoded or multipart/form-data.',
  422: 'The Idempotency-Key was used with another request.',
  423: 'The asset is locked.',
  429: 'Too many requests; wait Retry-After seconds.',
  503: 'A dependency is unavailable (database, storage), a query ran past its time, a feature is off, or the read models lag behind the consistency token sent; retry after Retry-After seconds.',
};

export const errorDescription = (status: ErrorStatus): string => errorDescriptions[status];

/** A POST on the command side takes an Idempotency-Key (docs/idempotency.md). */
export const takesIdempotencyKey = (contract: OperationContract): boolean => contract.side === 'command' && contract.method === 'post';

/** The query names a `cursor` and a `limit`: keyset pages with the headers of interface 4.3.2. */
export const isPaged = (contract: OperationContract): boolean => contract.query !== undefined && 'cursor' in contract.query.shape && 'limit' in contract.query.shape;

/** Whether a schema holds a UUID anywhere (a field, a list's items, a nested object). */
function namesIds(schema: z.ZodType): boolean {
  const json = JSON.stringify(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }));
  return json.includes('"format":"uuid"');
}

/** The error statuses an operation may answer, in order. */
export function errorStatusesOf(contract: OperationContract): ErrorStatus[] {
  const anonymous = !contract.authenticated;
  const hasBody = contract.body !== undefined;
  // A signed raw body is refused past its signed length (413); it is not budgeted (429).
  const raw = contract.rawBody !== undefined;
  const statuses = new Set<ErrorStatus>([
    // Every operation reads X-Consistency-Token and its query string, and checks credentials when sent.
    400,
    401,
    ...(contract.authenticated ? [403 as const] : []),
    ...(contract.path.includes('{') || (contract.body !== undefined && namesIds(contract.body)) ? [404 as const] : []),
    // A write's guards and lost races (execute-command.ts), or its Idempotency-Key still running.
    ...((contract.side === 'command' && contract.appendsEvents !== false) || takesIdempotencyKey(contract) ? [409 as const] : []),
    // Routes that need no token refuse a declared body over their bound before reading it.
    ...(hasBody || anonymous || raw ? [413 as const] : []),
    ...(hasBody ? [415 as const] : []),
    ...(takesIdempotencyKey(contract) ? [422 as const] : []),
    // Routes that need no token are budgeted per client address.
    ...(anonymous && !raw ? [429 as const] : []),
    ...(contract.errors ?? []),
    503,
  ]);
  return [...statuses].sort((a, b) => a - b);
}

/** Reads of read models are served by the standbys when a deployment has some (docs/consistency.md, "Standbys"). */
export const readsFromStandbys = (contract: OperationContract) => contract.side === 'query' && contract.readModels.length > 0;

/** The headers an answer of the operation with this status may carry. */
export function headersOf(contract: OperationContract, status: number): ResponseHeaderName[] {
  const headers = new Set<ResponseHeaderName>(contract.responses[status]?.headers ?? []);
  const success = status >= 200 && status < 300;
  if (success && contract.side === 'command') headers.add('X-Consistency-Token');
  if (success && takesIdempotencyKey(contract)) headers.add('Idempotent-Replayed');
  if (status === 201) headers.add('Location');
  if (success && readsFromStandbys(contract)) headers.add('X-Standby-Lag-Ms');
  if (status === 200 && isPaged(contract)) for (const h of ['X-Page-Limit', 'X-Has-More', 'X-Next-Cursor'] as const) headers.add(h);
  if (status === 401) headers.add('WWW-Authenticate');
  if (status === 429 || status === 503 || (status === 409 && takesIdempotencyKey(contract))) headers.add('Retry-After');
  // The anonymous budget's refusals must not be kept by caches.
  if (!contract.authenticated && contract.rawBody === undefined && status >= 400) headers.add('Cache-Control');
  return [...headers];
}
