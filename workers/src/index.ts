export * from './jobs.ts';
export * from './registry.ts';
export * from './start-workers.ts';
