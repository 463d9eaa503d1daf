import { conflict, forbidden, invalid, notFound } from '../shared/errors.ts';

export const countrySetErrors = {
  notFound: () => notFound('not_found', 'Country set not found.'),
  alreadyExists: () => conflict('already_exists', 'A country set with this id already exists.'),
  adminOnly: () => forbidden('permission_denied', 'Only admins of the organization and system administrators may change its country sets.'),
  invalidName: () => invalid('invalid_name', 'The name must be 1 to 255 characters.'),
  invalidKind: () => invalid('invalid_kind', 'The kind is not one of allowed, denied.'),
  invalidCountry: () => invalid('invalid_country', 'Country codes are two capital letters.'),
  inUse: () => conflict('country_set_in_use', 'Projects still reference this country set; remove it from them first.'),
};
