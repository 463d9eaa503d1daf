import { conflict, invalid, notFound } from '../shared/errors.ts';

export const collectionErrors = {
  notFound: () => notFound('not_found', 'Collection not found.'),
  alreadyExists: () => conflict('already_exists', 'A collection with this id already exists.'),
  invalidTitle: () => invalid('invalid_title', 'The title must be 1 to 255 characters.'),
};
