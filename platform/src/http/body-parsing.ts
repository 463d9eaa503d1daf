import express, { type RequestHandler } from 'express';
import multer from 'multer';
import { httpErrors } from './http-error.ts';

export type BodyFormat = 'none' | 'json' | 'form';

declare module 'express-serve-static-core' {
  interface Request {
    bodyFormat?: BodyFormat;
  }
}

function hasBody(req: express.Request): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

/**
 * Interface section 1: every body is accepted as JSON, URL-encoded form or multipart form.
 * Parsing happens only on the routes that take a body (never globally: the OAuth server
 * reads its own bodies).
 */
export function bodyParser(limitBytes: number): RequestHandler {
  const json = express.json({ limit: limitBytes, strict: false, type: () => true });
  const urlencoded = express.urlencoded({ limit: limitBytes, extended: false, parameterLimit: 1000, type: () => true });
  const multipart = multer({
    storage: multer.memoryStorage(),
    limits: { fieldSize: limitBytes, fileSize: limitBytes, files: 16, fields: 1000, parts: 1100 },
  }).any();

  return (req, res, next) => {
    if (!hasBody(req)) {
      req.body = {};
      req.bodyFormat = 'none';
      return next();
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limitBytes) return next(httpErrors.payloadTooLarge(limitBytes));

    const finish = (format: BodyFormat) => (error?: unknown) => {
      if (error) return next(error);
      if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
        return next(httpErrors.badRequest('parse_error', 'The request body must be an object.'));
      }
      req.bodyFormat = format;
      next();
    };
    if (type === 'application/json' || type.endsWith('+json')) return json(req, res, finish('json'));
    if (type === 'application/x-www-form-urlencoded') return urlencoded(req, res, finish('form'));
    if (type === 'multipart/form-data') {
      return multipart(req, res, (error?: unknown) => {
        if (!error && req.body === undefined) req.body = {};
        finish('form')(error);
      });
    }
    next(httpErrors.unsupportedMediaType(type || '(none)'));
  };
}
