import { adminUserContracts } from './admin-users.contract.ts';
import { assetContracts } from './assets.contract.ts';
import { assetNoteContracts } from './asset-notes.contract.ts';
import { collectionContracts } from './collections.contract.ts';
import { fundingAgencyContracts } from './funding-agencies.contract.ts';
import { webhookContracts } from './webhooks.contract.ts';
import { organizationContracts } from './organizations.contract.ts';
import { groupContracts } from './groups.contract.ts';
import { listPermissionFlags } from './permissions.contract.ts';
import { projectContracts } from './projects.contract.ts';
import { countrySetContracts } from './country-sets.contract.ts';
import { storageContracts } from './storage.contract.ts';
import { uploadContracts } from './uploads.contract.ts';
import { listAudit } from './audit.contract.ts';
import { changeContracts } from './changes.contract.ts';
import { endCurrentSession, getCurrentSession } from './session.contract.ts';

export * from './admin-users.contract.ts';
export * from './assets.contract.ts';
export * from './asset-notes.contract.ts';
export * from './collections.contract.ts';
export * from './fields.ts';
export * from './funding-agencies.contract.ts';
export * from './groups.contract.ts';
export * from './organizations.contract.ts';
export * from './permissions.contract.ts';
export * from './projects.contract.ts';
export * from './country-sets.contract.ts';
export * from './session.contract.ts';
export * from './storage.contract.ts';
export * from './uploads.contract.ts';
export * from './audit.contract.ts';
export * from './changes.contract.ts';
export * from './webhooks.contract.ts';

/** Every operation of the interface, both sides: the source of the OpenAPI document and the 405s. */
export const allContracts = [getCurrentSession, endCurrentSession, ...fundingAgencyContracts, ...groupContracts, ...adminUserContracts, ...organizationContracts, ...projectContracts, ...countrySetContracts, ...assetContracts, ...assetNoteContracts, ...collectionContracts, ...storageContracts, ...uploadContracts, ...changeContracts, ...webhookContracts, listAudit, listPermissionFlags];

export const apiTitle = 'Console API';
export const apiVersion = '1.0.0';
