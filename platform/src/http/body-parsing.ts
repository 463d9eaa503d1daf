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

    let done = false;
    const finish = (format: BodyFormat) => (error?: unknown) => {
      if (done) return;
      done = true;
      if (error) return next(error);
      if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
        return next(httpErrors.badRequest('parse_error', 'The request body must be an object.'));
      }
      req.bodyFormat = format;
      next();
    };
    if (type === 'application/json' || type.endsWith('+json')) return json(req, res, finish('json'));
    if (type === 'application/x-www-form-urlencoded') {
      return urlencoded(req, res, (error?: unknown) => {
        if (!error) req.body = withoutListBrackets(req.body as Record<string, unknown>);
        finish('form')(error);
      });
    }
    if (type === 'multipart/form-data') {
      // multer limits each part; the whole body (also when chunked) is capped here.
      let received = 0;
      const count = (chunk: Buffer) => {
        received += chunk.length;
        if (received <= limitBytes) return;
        req.off('data', count);
        req.unpipe();
        req.resume();
        finish('form')(httpErrors.payloadTooLarge(limitBytes));
      };
      req.on('data', count);
      return multipart(req, res, (error?: unknown) => {
        req.off('data', count);
        if (!error && req.body === undefined) req.body = {};
        finish('form')(error);
      });
    }
    next(httpErrors.unsupportedMediaType(type || '(none)'));
  };
}

/** `tags[]=a&tags[]=b`, the way many HTML forms and clients spell lists, means `tags`. */
function withoutListBrackets(body: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const name = key.endsWith('[]') ? key.slice(0, -2) : key;
    const previous = result[name];
    result[name] = previous === undefined ? value : ([] as unknown[]).concat(previous, value);
  }
  return result;
}
