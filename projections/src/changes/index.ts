export * from './resource-access.read.ts';
