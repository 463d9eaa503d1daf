export * from './decide.ts';
export * from './events.ts';
