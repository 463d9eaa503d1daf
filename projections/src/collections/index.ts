export * from './collections.projection.ts';
export * from './collections.read.ts';
