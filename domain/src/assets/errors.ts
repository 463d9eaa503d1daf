import { conflict, DomainError, forbidden, invalid, notFound } from '../shared/errors.ts';
import { lackedPermissions, type PermissionName } from '../shared/permissions.ts';

export const assetErrors = {
  notFound: () => notFound('not_found', 'Asset not found.'),
  alreadyExists: () => conflict('already_exists', 'An asset with this id already exists.'),
  lacks: (flag: PermissionName) => forbidden('permission_denied', lackedPermissions([flag], 'this asset')),
  locked: () => new DomainError('locked', 'asset_locked', 'The asset is locked; unlock it first.'),
  invalid: (field: string, message: string) => invalid(`invalid_${field}`, message),
  ownerNotAllowed: () => forbidden('permission_denied', 'You may create assets only for yourself, a project you are a member or admin of, or an organization you belong to.'),
  collectionNotAllowed: () => forbidden('permission_denied', lackedPermissions(['WRITE_METADATA'], 'the collection')),
  placingNeedsManage: () => forbidden('permission_denied', 'Putting an asset in a collection gives the collection\'s entries on it: you need the MANAGE permission on the asset.'),
  notInCollection: () => notFound('not_found', 'The asset is not in this collection.'),
  signedInOnly: () => forbidden('permission_denied', 'Only a signed-in user may do this.'),
};
