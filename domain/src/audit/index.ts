export * from './entity-folds.ts';
export * from './field-diff.ts';
