import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { BlobTooLargeError } from './blob-store.ts';

/**
 * Passes bytes through, counting them and hashing them with SHA-256; fails past `maxBytes`.
 * `hash: false` only counts (a direct upload's part: the whole object is hashed once, when
 * its parts are assembled).
 */
export class MeasuringStream extends Transform {
  private readonly hash: ReturnType<typeof createHash> | null;
  size = 0;

  private readonly maxBytes: number;
  constructor(maxBytes: number = Number.POSITIVE_INFINITY, options: { readonly hash?: boolean } = {}) {
    super();
    this.maxBytes = maxBytes;
    this.hash = options.hash === false ? null : createHash('sha256');
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      done(new BlobTooLargeError(this.maxBytes));
      return;
    }
    this.hash?.update(chunk);
    done(null, chunk);
  }

  /** Call once the stream has ended. */
  digest(): string {
    if (!this.hash) throw new Error('this stream only counts');
    return this.hash.digest('hex');
  }
}
