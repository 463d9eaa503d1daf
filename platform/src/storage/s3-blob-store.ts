import type { BlobStore, RepositoryLocation, S3Credentials } from './blob-store.ts';

type S3Location = Extract<RepositoryLocation, { kind: 's3' }>;

/**
 * A repository's store on S3 or an S3-compatible server (s3-sdk-blob-store.ts). The AWS SDK
 * (~60 ms of module loading) is loaded when the store is first used, not when the platform
 * is: a command that never touches an S3 repository (`cairn tokens issue`) never loads it.
 */
export function s3BlobStore(location: S3Location, credentials: S3Credentials): BlobStore {
  let opened: Promise<BlobStore> | undefined;
  const store = () => (opened ??= import('./s3-sdk-blob-store.ts').then((m) => m.sdkS3BlobStore(location, credentials)));
  return {
    kind: 's3',
    put: async (key, body, options) => (await store()).put(key, body, options),
    inspect: async (key) => (await store()).inspect(key),
    open: async (key) => (await store()).open(key),
    remove: async (key) => (await store()).remove(key),
    presignedUrl: async (key, options) => (await store()).presignedUrl(key, options),
    multipart: {
      create: async (key, uploadId, options) => (await store()).multipart.create(key, uploadId, options),
      partUrl: async (ref, partNumber, bytes, expiresInSeconds) => (await store()).multipart.partUrl(ref, partNumber, bytes, expiresInSeconds),
      writePart: async (ref, partNumber, body, bytes) => (await store()).multipart.writePart(ref, partNumber, body, bytes),
      listParts: async (ref) => (await store()).multipart.listParts(ref),
      complete: async (ref, partCount, options) => (await store()).multipart.complete(ref, partCount, options),
      abort: async (ref) => (await store()).multipart.abort(ref),
    },
  };
}
