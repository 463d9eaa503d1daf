import type { BlobStore, RepositoryLocation, S3Credentials } from './blob-store.ts';
import { fsBlobStore, type FsStoreOptions } from './fs-blob-store.ts';
import { s3BlobStore } from './s3-blob-store.ts';

/** The store of a repository's location; `credentials` are used by s3 locations only. */
export function openBlobStore(location: RepositoryLocation, credentials: S3Credentials, fsOptions: FsStoreOptions = {}): BlobStore {
  switch (location.kind) {
    case 'fs':
      return fsBlobStore(location.path, fsOptions);
    case 's3':
      return s3BlobStore(location, credentials);
    default: {
      const _exhaustive: never = location;
      throw new Error(`unknown repository kind: ${JSON.stringify(_exhaustive)}`);
    }
  }
}
