export * from './asset-relationships.projection.ts';
export * from './asset-relationships.read.ts';
