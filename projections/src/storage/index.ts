export * from './repositories.projection.ts';
export * from './repositories.read.ts';
export * from './allocations.projection.ts';
export * from './allocations.read.ts';
export * from './asset-contents.projection.ts';
export * from './asset-contents.read.ts';
export * from './asset-migrations.projection.ts';
export * from './asset-migrations.read.ts';
