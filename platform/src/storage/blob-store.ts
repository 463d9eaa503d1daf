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
  /** Direct uploads: parts sent by clients, assembled into an object (docs/storage.md "Direct uploads"). */
  readonly multipart: MultipartStore;
};

/** A direct upload at the repository: the object's key, the service's upload id, and the repository's own (S3's UploadId; null on fs). */
export type MultipartRef = { readonly key: string; readonly uploadId: string; readonly storageUploadId: string | null };

export type UploadedPart = { readonly partNumber: number; readonly size: number };

export type MultipartStore = {
  /** Opens the upload at the repository; S3's UploadId, null on fs. */
  create(key: string, uploadId: string, options: { readonly contentType: string }): Promise<string | null>;
  /**
   * A presigned URL that accepts part `partNumber` of exactly `bytes` bytes (the length is
   * signed, so a client cannot send more): s3 only, null on fs, whose parts go through the
   * service's signed part route.
   */
  partUrl(ref: MultipartRef, partNumber: number, bytes: number, expiresInSeconds: number): Promise<string | null>;
  /** Stores part `partNumber` (fs): exactly `bytes` bytes, or nothing (PartSizeError); a part sent again replaces it. */
  writePart(ref: MultipartRef, partNumber: number, body: Readable, bytes: number): Promise<void>;
  /** The parts that arrived, by number; none for an upload that is gone. */
  listParts(ref: MultipartRef): Promise<UploadedPart[]>;
  /** Assembles parts 1 to `partCount` into the object at `ref.key`, and measures it there. */
  complete(ref: MultipartRef, partCount: number, options: { readonly contentType: string }): Promise<StoredObject>;
  /** Removes the parts and the upload at the repository; one already gone is fine. */
  abort(ref: MultipartRef): Promise<void>;
};

/** A part whose length is not the one its place in the upload needs; nothing was kept. */
export class PartSizeError extends Error {
  readonly expected: number;
  readonly received: number;
  constructor(expected: number, received: number) {
    super(`the part has ${received} bytes where ${expected} were expected`);
    this.expected = expected;
    this.received = received;
    this.name = 'PartSizeError';
  }
}

/** The upload is not at the repository (aborted, expired, or never made there). */
export class MultipartGoneError extends Error {
  constructor() {
    super('the upload is not at the repository');
    this.name = 'MultipartGoneError';
  }
}

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
