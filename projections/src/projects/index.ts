export * from './projects.projection.ts';
export * from './country-sets.projection.ts';
export * from './projects.read.ts';
export * from './country-sets.read.ts';
export * from './project-gate.ts';
