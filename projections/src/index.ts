export * from './schema.ts';
export * from './registry.ts';
export * from './runner/projection.ts';
export * from './runner/projector.ts';
export * from './runner/checkpoints.ts';
export * from './funding-agencies/funding-agencies.read.ts';
export * from './funding-agencies/funding-agencies.projection.ts';
export * from './identity/identity.projection.ts';
