import type { Readable } from 'node:stream';
import busboy from 'busboy';
import type { Request } from 'express';
import { httpErrors } from '@cairn/platform';

export type UploadPart = { readonly stream: Readable; readonly filename: string; readonly mimeType: string };

export type TextFields = Readonly<Record<string, string>>;

/** What a multipart body to the content route is: an upload (a `file` part), or a record of an object already stored (none). */
export type UploadHandlers<T> = {
  readonly file: (fields: TextFields, part: UploadPart) => Promise<T>;
  readonly record: (fields: TextFields) => Promise<T>;
};

const textFields = new Set(['repository_id', 'filename', 'content_type', 'key']);

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A field's bytes (busboy hands them over as latin1, one character per byte) as strict UTF-8; null when they are not. */
function strictText(latin1: string): string | null {
  try {
    return strictUtf8.decode(Buffer.from(latin1, 'latin1'));
  } catch {
    return null;
  }
}

/**
 * Reads a multipart upload as it arrives: the text fields (which must come before the
 * file), then hands the `file` part's stream to `handlers.file`, which stores it. Nothing is
 * held whole in memory. A client gone mid-upload fails the part's stream, so the handler
 * fails and keeps nothing (docs/storage.md). A body that ends without a `file` part is a
 * record of an object already in the repository (DECISIONS.md 8): `handlers.record`.
 */
export function readUpload<T>(req: Request, handlers: UploadHandlers<T>, idleTimeoutMs = 60_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    // A client gone before the route came here (its checks are awaited first) has already
    // fired 'aborted' and 'close': nothing would ever end the part, and its partial file
    // would stay open for good. So has one whose whole body had arrived: a destroyed
    // request delivers no more of what it buffered.
    if (!req.readableEnded && (req.destroyed || req.socket.destroyed)) {
      req.resume();
      reject(new Error('the client closed the connection mid-upload'));
      return;
    }
    let parser: busboy.Busboy;
    try {
      // Field values as their bytes (latin1), decoded strictly below: text that is not UTF-8 is refused, never stored with U+FFFD (docs/http.md).
      parser = busboy({ headers: req.headers, limits: { files: 1, fields: 10, fieldSize: 4096, parts: 11 }, defParamCharset: 'utf8', defCharset: 'latin1' });
    } catch {
      reject(httpErrors.badRequest('parse_error', 'The multipart body could not be parsed (no boundary?).'));
      return;
    }
    const fields: Record<string, string> = {};
    let receiving: Promise<T> | null = null;
    let part: Readable | null = null;
    let settled = false;
    const fail = (error: unknown) => {
      // The part's stream fails too, or the store would wait for bytes that never come.
      if (part && !part.readableEnded) part.destroy(error instanceof Error ? error : new Error(String(error)));
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      req.resume();
      reject(error);
    };
    // Not `req.complete`: a body that arrived whole but is not read yet is lost all the same.
    const onGone = () => {
      if (!req.readableEnded) parser.destroy(new Error('the client closed the connection mid-upload'));
    };
    req.on('aborted', onGone);
    req.on('close', onGone);
    // A client that stops sending holds the partial file open: after this long without a
    // byte the connection is cut, which fails the part as a client gone does.
    req.setTimeout(idleTimeoutMs, () => req.socket.destroy());
    // Once the body is in, the answer may take its time (Node cuts an idle socket nobody listens for).
    req.once('end', () => req.socket.setTimeout(0));

    parser.on('field', (name, value) => {
      if (settled || !textFields.has(name)) return;
      const text = strictText(value);
      if (text === null) fail(httpErrors.badRequest('parse_error', `The multipart field "${name}" is not valid UTF-8.`));
      else fields[name] = text;
    });
    parser.on('file', (name, stream, info) => {
      // Refused already (a field that is not UTF-8, say): the parser still emits what it
      // had buffered, often this part in the same chunk, and storing it would record
      // content under a 400.
      if (settled) {
        stream.resume();
        return;
      }
      if (name !== 'file' || receiving) {
        stream.resume();
        if (name === 'file') fail(httpErrors.validation({ file: ['Send one file per request.'] }));
        return;
      }
      part = stream;
      // The store reports the part's errors; one before it started reading must not go uncaught.
      stream.on('error', () => undefined);
      receiving = handlers.file(fields, { stream, filename: info.filename ?? '', mimeType: info.mimeType });
      // A refusal (too large, over the allocation) answers at once; the rest of the body is drained.
      receiving.catch(fail);
    });
    parser.on('error', (error: unknown) => {
      fail(error instanceof Error && error.message.includes('mid-upload') ? error : httpErrors.badRequest('parse_error', 'The multipart body could not be parsed.'));
    });
    parser.on('close', () => {
      if (settled) return;
      // No file part: the body is a record of an object already in the repository.
      (receiving ?? handlers.record(fields)).then(
        (value) => {
          settled = true;
          resolve(value);
        },
        (error: unknown) => fail(error),
      );
    });
    req.pipe(parser);
  });
}
