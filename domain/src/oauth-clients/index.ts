export * from './events.ts';
export * from './decide.ts';
