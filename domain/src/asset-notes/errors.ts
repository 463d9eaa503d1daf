import { forbidden, invalid, notFound } from '../shared/errors.ts';
import { lackedPermissions, type PermissionName } from '../shared/permissions.ts';

export const noteErrors = {
  assetNotFound: () => notFound('not_found', 'Asset not found.'),
  noteNotFound: () => notFound('not_found', 'Note not found.'),
  markdownNotFound: () => notFound('not_found', 'This asset has no markdown note.'),
  lacks: (flag: PermissionName) => forbidden('permission_denied', lackedPermissions([flag], 'this asset')),
  notAuthor: () => forbidden('permission_denied', 'Only the author of a note, or who manages the asset, may change or delete it.'),
  signedInOnly: () => forbidden('permission_denied', 'Only a signed-in user may write notes.'),
  invalidContent: (max: number) => invalid('invalid_content', `The content must be 1 to ${max} characters.`),
};
