export * from './commands.ts';
export * from './decide.ts';
export * from './errors.ts';
export * from './events.ts';
export * from './state.ts';
