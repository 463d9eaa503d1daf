import express, { type Request, type RequestHandler, type Response } from 'express';
import multer from 'multer';
import { decodeUtf8, jsonNestingExceeds, maxJsonDepth, parseFormText } from './body-text.ts';
import { HttpError, httpErrors } from './http-error.ts';

/** `stream`: a multipart upload left unread for the route to stream (contracts with `streamsMultipart`). */
export type BodyFormat = 'none' | 'json' | 'form' | 'stream';

declare module 'express-serve-static-core' {
  interface Request {
    bodyFormat?: BodyFormat;
  }
}

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

/** The media type and charset of a Content-Type header, lower-cased. */
function mediaType(header: string | undefined): { type: string; charset: string | undefined } {
  const [type = '', ...parameters] = (header ?? '').split(';');
  const charset = parameters
    .map((p) => /^\s*charset\s*=\s*"?([^";\s]*)"?\s*$/i.exec(p)?.[1])
    .find((c) => c !== undefined)
    ?.toLowerCase();
  return { type: type.trim().toLowerCase(), charset };
}

const notUtf8 = () => httpErrors.badRequest('parse_error', 'The request body is not valid UTF-8.');

/** JSON text as a value: UTF-8 only, its nesting bounded before it is parsed (docs/http.md). */
export function parseJsonBody(bytes: Uint8Array): unknown {
  const text = decodeUtf8(bytes);
  if (text === null) throw notUtf8();
  if (text.length === 0) return {};
  if (jsonNestingExceeds(text)) throw httpErrors.badRequest('parse_error', `The request body nests deeper than ${maxJsonDepth} levels; JSON may nest at most ${maxJsonDepth} levels deep.`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw httpErrors.badRequest('parse_error', 'The request body could not be parsed.');
  }
}

/**
 * A multipart value decoded as strict UTF-8: a string, a list of them, or the object multer
 * makes of bracketed names (`a[b]`), whose keys and strings are decoded too; undefined when
 * any part is not UTF-8. Nesting is bounded by multer's field name size (100 bytes).
 */
function strictValue(value: unknown): unknown {
  if (typeof value === 'string') return decodeUtf8(Buffer.from(value, 'latin1')) ?? undefined;
  if (Array.isArray(value)) {
    const items = value.map(strictValue);
    return items.includes(undefined) ? undefined : items;
  }
  if (value !== null && typeof value === 'object') {
    const decoded: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [name, inner] of Object.entries(value)) {
      const key = decodeUtf8(Buffer.from(name, 'latin1'));
      const result = strictValue(inner);
      if (key === null || result === undefined) return undefined;
      decoded[key] = result;
    }
    return decoded;
  }
  return value;
}

/**
 * Interface section 1: every body is accepted as JSON, URL-encoded form or multipart form.
 * Parsing happens only on the routes that take a body (never globally: the OAuth server
 * reads its own bodies). body-parser reads the bytes (the size limit, decompression); the
 * text is checked and parsed here, in single passes (docs/http.md "Hostile input").
 */
export function bodyParser(limitBytes: number, options: { streamMultipart?: boolean } = {}): RequestHandler {
  const raw = express.raw({ limit: limitBytes, type: () => true });
  // `defCharset` is an option of multer 2 that its type definitions do not list yet.
  const multipartOptions: multer.Options & { defCharset: string } = {
    storage: multer.memoryStorage(),
    limits: { fieldSize: limitBytes, fileSize: limitBytes, files: 16, fields: 1000, parts: 1100 },
    // Field values arrive as their bytes (latin1 maps each byte to one character) and are
    // decoded strictly below: invalid UTF-8 is refused, never stored with replacement marks.
    defCharset: 'latin1',
  };
  const multipart = multer(multipartOptions).any();

  /** Each text field of a multipart body, decoded as strict UTF-8; null when one is not UTF-8. */
  const strictFields = (body: Record<string, unknown>): Record<string, unknown> | null => {
    const decoded: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [name, value] of Object.entries(body)) {
      const result = strictValue(value);
      if (result === undefined) return null;
      const key = decodeUtf8(Buffer.from(name, 'latin1'));
      if (key === null) return null;
      decoded[key] = result;
    }
    return decoded;
  };

  /** The body's bytes, decompressed; a body that does not decompress is a parse error. */
  const readBytes = (req: Request, res: Response, then: (error: unknown, bytes: Buffer) => void) => {
    raw(req, res, (error?: unknown) => {
      if (error && !(error instanceof HttpError) && typeof (error as { type?: unknown }).type !== 'string' && (req.headers['content-encoding'] ?? 'identity').toLowerCase() !== 'identity') {
        return then(httpErrors.badRequest('parse_error', 'The request body could not be decompressed.'), Buffer.alloc(0));
      }
      then(error, Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
    });
  };

  return (req, res, next) => {
    if (!hasBody(req)) {
      req.body = {};
      req.bodyFormat = 'none';
      return next();
    }
    const { type, charset } = mediaType(req.headers['content-type']);
    if (options.streamMultipart && type === 'multipart/form-data') {
      req.body = {};
      req.bodyFormat = 'stream';
      return next();
    }
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
    const unsupportedCharset = () => next(httpErrors.unsupportedMediaType(`${type}; charset=${charset ?? ''}`));

    if (type === 'application/json' || type.endsWith('+json')) {
      // RFC 8259 8.1: JSON exchanged between systems is UTF-8.
      if (charset !== undefined && charset !== 'utf-8') return unsupportedCharset();
      return readBytes(req, res, (error, bytes) => {
        if (error) return finish('json')(error);
        try {
          req.body = parseJsonBody(bytes);
        } catch (parseError) {
          return finish('json')(parseError);
        }
        finish('json')();
      });
    }
    if (type === 'application/x-www-form-urlencoded') {
      if (charset !== undefined && charset !== 'utf-8' && charset !== 'iso-8859-1') return unsupportedCharset();
      const latin1 = charset === 'iso-8859-1';
      return readBytes(req, res, (error, bytes) => {
        if (error) return finish('form')(error);
        const text = latin1 ? bytes.toString('latin1') : decodeUtf8(bytes);
        if (text === null) return finish('form')(notUtf8());
        const parsed = parseFormText(text, 1000, latin1 ? 'latin1' : 'utf-8');
        if ('tooMany' in parsed) return finish('form')(httpErrors.payloadTooLarge(limitBytes));
        if ('notUtf8' in parsed) return finish('form')(httpErrors.badRequest('parse_error', 'A form field does not percent-decode to UTF-8 text.'));
        req.body = parsed.fields;
        finish('form')();
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
        if (!error && req.body === undefined) req.body = Object.create(null);
        if (!error) {
          const decoded = strictFields(req.body as Record<string, unknown>);
          if (decoded === null) return finish('form')(httpErrors.badRequest('parse_error', 'A multipart field is not valid UTF-8.'));
          req.body = decoded;
        }
        finish('form')(error);
      });
    }
    next(httpErrors.unsupportedMediaType(type || '(none)'));
  };
}
