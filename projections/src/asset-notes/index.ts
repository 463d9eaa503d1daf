export * from './asset-notes.projection.ts';
export * from './asset-notes.read.ts';
