export * from './asset-json.ts';
export * from './assets.projection.ts';
export * from './assets.read.ts';
export * from './asset-gate.ts';
export * from './owner-lookups.ts';
export * from './permissions.read.ts';
export * from './asset-page.ts';
export * from './asset-filters.ts';
