export * from './ip-address.ts';
export * from './networks.ts';
export * from './special-addresses.ts';
export * from './country-database.ts';
export * from './client-address.ts';
export * from './geo-policy.ts';
export * from './geo-service.ts';
export * from './geo-config.ts';
