export * from './access.ts';
export * from './commands.ts';
export * from './decide.ts';
export * from './errors.ts';
export * from './events.ts';
export * from './limits.ts';
export * from './state.ts';
export * from './migrations.ts';
