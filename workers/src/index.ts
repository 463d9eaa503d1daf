export * from './jobs.ts';
export * from './registry.ts';
export * from './start-workers.ts';
export * from './outbox-runner.ts';
export * from './content/content-deps.ts';
export * from './content/content-jobs.ts';
export * from './queue-health.ts';
