export * from './target-policy.ts';
export * from './signature.ts';
export * from './sealed-secret.ts';
export * from './post-webhook.ts';
