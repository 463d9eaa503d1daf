import { fundingAgencyContracts } from './funding-agencies.contract.ts';
import { listPermissionFlags } from './permissions.contract.ts';

export * from './fields.ts';
export * from './funding-agencies.contract.ts';
export * from './permissions.contract.ts';

/** Every operation of the interface, both sides: the source of the OpenAPI document and the 405s. */
export const allContracts = [...fundingAgencyContracts, listPermissionFlags];

export const apiTitle = 'Console API';
export const apiVersion = '1.0.0';
