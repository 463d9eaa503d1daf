export * from './metrics.ts';
export * from './instrument.ts';
