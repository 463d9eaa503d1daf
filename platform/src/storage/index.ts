export * from './blob-store.ts';
export * from './measuring-stream.ts';
export * from './fs-blob-store.ts';
export * from './s3-blob-store.ts';
export * from './open-blob-store.ts';
export * from './repository-stores.ts';
export * from './download-links.ts';
export * from './content-headers.ts';
