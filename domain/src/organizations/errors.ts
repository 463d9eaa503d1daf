import { conflict, forbidden, invalid, notFound } from '../shared/errors.ts';

export const organizationErrors = {
  notFound: () => notFound('not_found', 'Organization not found.'),
  notMember: () => notFound('not_found', 'The user is not a member of this organization.'),
  adminOnly: () => forbidden('permission_denied', 'Only a system administrator may manage organizations.'),
  alreadyExists: () => conflict('already_exists', 'An organization with this id already exists.'),
  alreadyMember: () => conflict('already_member', 'The user is already a member of this organization.'),
  blankName: () => invalid('invalid_name', 'The name must not be blank.'),
  badCountry: () => invalid('invalid_country', 'The country must be two capital letters.'),
};
