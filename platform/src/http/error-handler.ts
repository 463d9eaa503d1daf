import { DomainError } from '@cairn/domain';
import type { ErrorRequestHandler } from 'express';
import { DatabaseBusyError } from '../db/pool.ts';
import { IdempotencyConflictError, WrongExpectedVersionError } from '../event-store/event-store.ts';
import type { Logger } from '../logging/logger.ts';
import { StorageUnavailableError } from '../storage/blob-store.ts';
import { isDatabaseUnavailable, isStatementTimeout, type OutageTracker } from './database-outage.ts';
import { HttpError, httpErrors, statusOfDomainKind } from './http-error.ts';

type ParserError = Error & { type?: string; status?: number; code?: string; limit?: number };

/** Maps every failure to the error shape; anything unexpected is logged and becomes a 500. */
export function toHttpError(error: unknown, bodyLimit: number): HttpError | null {
  if (error instanceof HttpError) return error;
  if (error instanceof DomainError) return new HttpError(statusOfDomainKind[error.kind], error.code, error.message);
  if (error instanceof WrongExpectedVersionError) return httpErrors.conflict('concurrent_modification', 'The resource was changed by another request; try again.');
  if (error instanceof IdempotencyConflictError) return httpErrors.conflict('idempotency_conflict', error.message);
  // Every connection stayed busy with other requests while this one waited: load, not an outage.
  if (error instanceof DatabaseBusyError) return httpErrors.unavailable('service_busy', 'Every database connection of this process is busy with other requests; try again shortly.', 1);
  if (error instanceof StorageUnavailableError) return httpErrors.unavailable('storage_unavailable', 'The content repository cannot be reached right now; retry shortly.', 5);
  const parser = error as ParserError;
  switch (parser.type) {
    case 'entity.too.large':
    case 'parameters.too.many':
      return httpErrors.payloadTooLarge(bodyLimit);
    case 'entity.parse.failed':
      return httpErrors.badRequest('parse_error', 'The request body could not be parsed.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return httpErrors.unsupportedMediaType(parser.message);
    case 'request.aborted':
      return httpErrors.badRequest('request_aborted', 'The request was aborted.');
    default:
      break;
  }
  // A path whose percent-encoding does not decode (`/api/assets/%zz/`): the router cannot
  // name its parameters, so no route matches it; answered as any unknown path (DECISIONS.md 1).
  if (error instanceof URIError || (parser.status === 400 && parser.message?.startsWith('Failed to decode param'))) return httpErrors.notFound();
  // A compressed body that does not decompress.
  if (typeof parser.code === 'string' && parser.code.startsWith('Z_')) return httpErrors.badRequest('parse_error', 'The request body could not be decompressed.');
  if (parser.name === 'MulterError') {
    if (parser.code === 'LIMIT_FILE_SIZE' || parser.code === 'LIMIT_FIELD_VALUE' || parser.code === 'LIMIT_PART_COUNT' || parser.code === 'LIMIT_FIELD_COUNT') {
      return httpErrors.payloadTooLarge(bodyLimit);
    }
    return httpErrors.badRequest('parse_error', `The multipart body is not valid: ${parser.message}.`);
  }
  if (parser.message === 'Unexpected end of form' || parser.message === 'Multipart: Boundary not found' || parser.message?.startsWith('Malformed part header')) {
    return httpErrors.badRequest('parse_error', 'The multipart body could not be parsed.');
  }
  return null;
}

export function errorHandler(logger: Logger, bodyLimit: number, outage?: OutageTracker): ErrorRequestHandler {
  return (error, req, res, _next) => {
    let httpError = toHttpError(error, bodyLimit);
    // One line, no stack: the repository's failure is the operator's to see, not a bug of ours.
    if (error instanceof StorageUnavailableError) logger.warn('repository unavailable', { method: req.method, path: req.path, error: error.message });
    if (!httpError && isDatabaseUnavailable(error)) {
      outage?.failed(error);
      httpError = httpErrors.unavailable('database_unavailable', 'The database cannot be reached right now; retry shortly.', 2);
    }
    // The serving pool's statement bound (CAIRN_DB_QUERY_TIMEOUT_MS) cut this request's work: the database is
    // overloaded or the work too large for now; not an outage, and not the client's fault either.
    if (!httpError && isStatementTimeout(error)) httpError = httpErrors.unavailable('database_timeout', 'The database did not finish this request in time; retry later.', 5);
    if (!httpError) {
      logger.error('unhandled error', { method: req.method, path: req.path, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      httpError = new HttpError(500, 'internal_error', 'An unexpected error occurred.');
    }
    if (res.headersSent) return;
    res.status(httpError.status).set(httpError.headers).json(httpError.toBody());
  };
}
