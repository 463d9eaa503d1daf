import type { Readable } from 'node:stream';

/** What a finished write or a read-through tells of an object. */
export type StoredObject = { readonly size: number; readonly sha256: string };

/** A repository's place and kind, as the repository's event records it (no credentials). */
export type RepositoryLocation =
  | { readonly kind: 'fs'; readonly path: string }
  | { readonly kind: 's3'; readonly endpoint: string; readonly bucket: string; readonly prefix: string; readonly region: string };

/** Credentials of S3-compatible repositories: from configuration, never from the API or the log. */
export type S3Credentials = { readonly accessKeyId: string; readonly secretAccessKey: string } | null;

/**
 * Where content bytes live (docs/storage.md). Keys are relative (`assets/<asset>/<content>`);
 * a store maps them under its directory or prefix.
 */
export type BlobStore = {
  readonly kind: 'fs' | 's3';
  /**
   * Streams `body` to `key`, computing size and SHA-256 on the way; memory stays flat in the
   * size. The object appears whole or not at all: past `maxBytes`, or when `body` fails
   * (a client gone mid-upload), it throws and leaves nothing behind.
   */
  put(key: string, body: Readable, options?: { readonly maxBytes?: number; readonly contentType?: string }): Promise<StoredObject>;
  /** Reads the object through to hash it; null when there is none. */
  inspect(key: string): Promise<StoredObject | null>;
  /** The object's bytes; throws BlobNotFoundError when there is none. */
  open(key: string): Promise<Readable>;
  /** Removes the object; one that is not there is fine. */
  remove(key: string): Promise<void>;
  /** A short-lived URL that downloads the object without other credentials (s3 only: null for fs). */
  presignedUrl(key: string, options: { readonly expiresInSeconds: number; readonly filename: string }): Promise<string | null>;
};

export class BlobNotFoundError extends Error {
  readonly key: string;
  constructor(key: string) {
    super(`no object at ${key}`);
    this.key = key;
    this.name = 'BlobNotFoundError';
  }
}

/** The body went past the size the write allowed; nothing was kept. */
export class BlobTooLargeError extends Error {
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    super(`the object is larger than ${maxBytes} bytes`);
    this.maxBytes = maxBytes;
    this.name = 'BlobTooLargeError';
  }
}

/**
 * The repository could not be reached or refused the request (a network failure, an S3
 * error other than a missing key): a dependency down, answered 503 `storage_unavailable`,
 * never mistaken for the database being down (docs/storage.md).
 */
export class StorageUnavailableError extends Error {
  override readonly cause: unknown;
  constructor(cause: unknown) {
    super(`the repository is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.cause = cause;
    this.name = 'StorageUnavailableError';
  }
}

/** Keys are made by the service or checked by the API; this refuses any that could leave the store's root. */
export function assertSafeKey(key: string): void {
  const parts = key.split('/');
  if (key.length === 0 || key.length > 1024 || key.startsWith('/') || parts.some((p) => p === '' || p === '.' || p === '..') || key.includes('\0') || key.includes('\\')) {
    throw new Error(`unsafe object key: ${JSON.stringify(key)}`);
  }
}
