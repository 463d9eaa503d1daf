import { forbidden, invalid, notFound } from '../shared/errors.ts';

export const noteErrors = {
  assetNotFound: () => notFound('not_found', 'Asset not found.'),
  noteNotFound: () => notFound('not_found', 'Note not found.'),
  markdownNotFound: () => notFound('not_found', 'This asset has no markdown note.'),
  lacks: (flag: string) => forbidden('permission_denied', `You lack the ${flag} permission on this asset.`),
  notAuthor: () => forbidden('permission_denied', 'Only the author of a note, or who manages the asset, may change or delete it.'),
  signedInOnly: () => forbidden('permission_denied', 'Only a signed-in user may write notes.'),
  invalidContent: (max: number) => invalid('invalid_content', `The content must be 1 to ${max} characters.`),
};
