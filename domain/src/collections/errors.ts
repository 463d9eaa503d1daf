import { conflict, DomainError, forbidden, invalid, notFound } from '../shared/errors.ts';
import { lackedPermissions, type PermissionName } from '../shared/permissions.ts';

export const collectionErrors = {
  notFound: () => notFound('not_found', 'Collection not found.'),
  alreadyExists: () => conflict('already_exists', 'A collection with this id already exists.'),
  invalidTitle: () => invalid('invalid_title', 'The title must be 1 to 255 characters.'),
  invalid: (field: string, message: string) => invalid(`invalid_${field}`, message),
  lacks: (names: readonly [PermissionName, ...PermissionName[]], on: string) => forbidden('permission_denied', lackedPermissions(names, on)),
  ownerNotAllowed: () => forbidden('permission_denied', 'You may create collections only for yourself or a project you are an admin or member of.'),
  root: () => conflict('root_collection', 'A root collection cannot be moved or deleted.'),
  cycle: () => conflict('collection_cycle', 'A collection cannot move into itself or its own subtree.'),
  notEmpty: () => conflict('collection_not_empty', 'The collection holds collections or assets: delete with ?recursive=true to delete its subtree and detach its assets.'),
  stale: () => new DomainError('precondition_failed', 'provenance_mismatch', 'The collection changed since the provenance token you sent (If-Match); read it again.'),
};
