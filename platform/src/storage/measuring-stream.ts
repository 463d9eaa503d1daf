import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { BlobTooLargeError } from './blob-store.ts';

/** Passes bytes through, counting them and hashing them with SHA-256; fails past `maxBytes`. */
export class MeasuringStream extends Transform {
  private readonly hash = createHash('sha256');
  size = 0;

  private readonly maxBytes: number;
  constructor(maxBytes: number = Number.POSITIVE_INFINITY) {
    super();
    this.maxBytes = maxBytes;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      done(new BlobTooLargeError(this.maxBytes));
      return;
    }
    this.hash.update(chunk);
    done(null, chunk);
  }

  /** Call once the stream has ended. */
  digest(): string {
    return this.hash.digest('hex');
  }
}
