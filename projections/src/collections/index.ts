export * from './collections.projection.ts';
export * from './collections.read.ts';
export * from './collection-assets.read.ts';
