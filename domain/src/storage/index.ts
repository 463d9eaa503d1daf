export * from './repository.ts';
export * from './allocation.ts';
export * from './content.ts';
export * from './default-allocation.ts';
export * from './upload.ts';
