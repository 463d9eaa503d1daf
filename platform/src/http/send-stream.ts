import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';

/** A streamed answer: the bytes come from a file or a store (docs/storage.md "Streams and failures"). */
export type StreamAnswer = {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly stream: { readonly body: Readable; readonly contentType: string };
};

/** The store gave more or fewer bytes than the answer's Content-Length promised. */
export class StreamLengthMismatch extends Error {
  readonly declared: number;
  readonly sent: number;
  constructor(
    declared: number,
    sent: number,
  ) {
    super(`a streamed answer declared ${declared} bytes and its source gave ${sent}`);
    this.declared = declared;
    this.sent = sent;
    this.name = 'StreamLengthMismatch';
  }
}

/** Counts the bytes that pass, and fails the stream when they are not exactly `declared`. */
function exactly(declared: number): Transform {
  let sent = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      sent += chunk.length;
      if (sent > declared) return callback(new StreamLengthMismatch(declared, sent));
      callback(null, chunk);
    },
    flush(callback: TransformCallback) {
      callback(sent === declared ? null : new StreamLengthMismatch(declared, sent));
    },
  });
}

/**
 * Sends a streamed answer with one owner for its source: whatever happens (the client gone
 * before or during the answer, the store failing mid-stream, a client that stops reading for
 * `idleTimeoutMs`, a header that cannot be set), the source is destroyed, which closes its
 * file or store connection, and a broken answer cuts the connection rather than leave the
 * client waiting for bytes that will not come. Resolves once the answer is over; rejects
 * only with a failure of the source, which the error handler logs (the status is sent).
 */
export async function sendStream(req: Request, res: Response, answer: StreamAnswer, idleTimeoutMs: number): Promise<void> {
  const { body } = answer.stream;
  try {
    res.status(answer.status).set(answer.headers ?? {}).type(answer.stream.contentType);
  } catch (error) {
    body.destroy();
    throw error;
  }
  // HEAD has no body to read; a client already gone needs none.
  if (req.method === 'HEAD' || req.socket.destroyed || res.destroyed) {
    body.destroy();
    if (!res.destroyed) res.end();
    return;
  }
  // Node's socket timeout: no byte written or read for this long (a reader that stopped).
  res.setTimeout(idleTimeoutMs, () => res.destroy());
  const declared = Number(res.get('Content-Length') ?? Number.NaN);
  try {
    if (Number.isSafeInteger(declared)) await pipeline(body, exactly(declared), res);
    else await pipeline(body, res);
  } catch (error) {
    // pipeline has destroyed the source and the response (the connection is cut).
    body.destroy();
    res.destroy();
    // The client's leaving (or stalling) is ordinary; a source that failed or lied is not.
    if (error instanceof StreamLengthMismatch || (body.errored !== null && body.errored !== undefined)) throw error;
  }
}
