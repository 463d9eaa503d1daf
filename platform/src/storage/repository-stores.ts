import type { BlobStore, RepositoryLocation, S3Credentials } from './blob-store.ts';
import type { FsStoreOptions } from './fs-blob-store.ts';
import { openBlobStore } from './open-blob-store.ts';

/** Each repository's store, opened once (a repository's location never changes). */
export type RepositoryStores = { forRepository(id: string): Promise<BlobStore | null> };

export function createRepositoryStores(lookup: (id: string) => Promise<RepositoryLocation | undefined>, credentials: S3Credentials, fsOptions: FsStoreOptions = {}): RepositoryStores {
  const opened = new Map<string, BlobStore>();
  return {
    async forRepository(id) {
      const known = opened.get(id);
      if (known) return known;
      const location = await lookup(id);
      if (!location) return null;
      const store = openBlobStore(location, credentials, fsOptions);
      opened.set(id, store);
      return store;
    },
  };
}
